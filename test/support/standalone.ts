import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');

/** `npm start` as its own process (PGlite does not start inside a jest worker; users run it this way too). */
export interface StandaloneProcess {
  url: string;
  /** The key printed at a first start without WARDEN_INIT_API_KEY. */
  generatedApiKey?: string;
  /** The first admin printed at a first start without WARDEN_INIT_ADMIN_EMAIL / _PASSWORD. */
  generatedAdmin?: { email: string; password: string };
  child: ChildProcess;
  /** SIGTERM, wait for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

function withoutDatabaseUrl(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DATABASE_URL: _omitted, ...rest } = env;
  return rest;
}

/**
 * Starts `services/standalone/src/main.ts` with `env` (PORT defaults to 0 = any free port) and
 * uses the embedded database unless `env.DATABASE_URL` is given, and
 * resolves once it logs "agent warden ready". Rejects when it exits first or after `timeoutMs`.
 */
export function startStandalone(env: Record<string, string>, timeoutMs = 90_000): Promise<StandaloneProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/standalone/src/main.ts'], {
    cwd: ROOT,
    // The embedded database unless the caller names one: the test command exports DATABASE_URL for
    // the suites that use the shared server, and a child inheriting it would share that database.
    env: { ...withoutDatabaseUrl(process.env), PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let generatedApiKey: string | undefined;
    let generatedAdmin: { email: string; password: string } | undefined;
    let url: string | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`standalone did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!url) reject(new Error(`standalone exited with ${code} before listening`));
    });
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const key = line.match(/Your API key \(shown only once\): (\S+)/);
      if (key) generatedApiKey = key[1];
      const admin = line.match(/sign in as (\S+) with the password \(shown only once\): (\S+)/);
      if (admin) generatedAdmin = { email: admin[1]!, password: admin[2]! };
      if (line.startsWith('{')) {
        try {
          const j = JSON.parse(line) as { msg?: string; url?: string; level?: string };
          if (j.level === 'error' || j.level === 'fatal') process.stderr.write(line + '\n');
          if (j.msg === 'agent warden ready' && j.url) url = j.url;
        } catch {
          /* not a log line */
        }
      }
      // "ready" is logged after the key banner, so the key (if any) is known by then.
      if (url) {
        clearTimeout(timer);
        resolve({
          url,
          generatedApiKey,
          generatedAdmin,
          child,
          stop: () =>
            new Promise((res) => {
              if (child.exitCode !== null) return res(child.exitCode);
              child.once('exit', (code) => res(code));
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}
