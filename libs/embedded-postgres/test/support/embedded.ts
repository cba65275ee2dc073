import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../../migrations/test/support/postgres';

/** An embedded PostgreSQL served by a child process (see embedded-server.ts). */
export interface EmbeddedProcess {
  url: string;
  port: number;
  /** Asks the server to stop (closes its stdin); resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `startEmbeddedPostgres({ dataDir, port: 0 })` in a child process.
 * @throws with the server's error code (e.g. EMBEDDED_DATA_DIR_LOCKED) when it could not start
 */
export function startEmbeddedProcess(dataDir: string): Promise<EmbeddedProcess> {
  const child: ChildProcess = spawn(
    path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
    [path.join(REPO_ROOT, 'libs/embedded-postgres/test/support/embedded-server.ts'), dataDir],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      const message = JSON.parse(out.slice(0, newline)) as {
        url?: string;
        port?: number;
        error?: string;
        message?: string;
      };
      if (message.url) {
        resolve({
          url: message.url,
          port: message.port!,
          stop: () => {
            child.stdin!.end();
            return exited;
          },
        });
      } else {
        reject(Object.assign(new Error(message.message), { code: message.error }));
      }
    });
    void exited.then((code) => reject(new Error(`embedded server exited with ${code} before it was ready`)));
  });
}
