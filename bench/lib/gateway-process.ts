import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT } from './env';

/** A gateway running in its own OS process. */
export interface GatewayProcess {
  url: string;
  pid: number;
  /** SIGTERM and wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/**
 * Spawns `bench/lib/gateway-main.ts` (the real gateway through `start()`) as a child Node process
 * with `env` added to this process's environment, and resolves once it listens. Running it apart
 * from the load generator gives it a core of its own instead of sharing the benchmark's event loop.
 */
export function spawnGateway(env: Record<string, string>, timeoutMs = 60_000): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/lib/gateway-main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    let url: string | undefined;
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!url) reject(new Error(`gateway exited with ${code} before listening`));
    });
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (url) {
        process.stderr.write(line + '\n'); // the gateway's own (warn+) log lines
        return;
      }
      try {
        const j = JSON.parse(line) as { ready?: boolean; url?: string; level?: string };
        if (j.ready && j.url) {
          url = j.url;
          clearTimeout(timer);
          resolve({
            url,
            pid: child.pid!,
            stop: async (graceMs = 10_000) => {
              const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
              child.kill('SIGTERM');
              await waitExit(child);
              clearTimeout(kill);
            },
          });
        } else process.stderr.write(line + '\n');
      } catch {
        process.stderr.write(line + '\n');
      }
    });
  });
}
