import readline from 'node:readline';
import { spawnTsx } from './child';
import { profileChild, type ProfileSummary } from './profile';

/** A gateway running in its own OS process. */
export interface GatewayProcess {
  url: string;
  pid: number;
  /** Profiles the gateway's CPU while `fn` runs; resolves with the self time per package. */
  profile(fn: () => Promise<unknown>): Promise<ProfileSummary>;
  /** SIGTERM and wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns `bench/lib/gateway-main.ts` (the real gateway through `start()`) as a child Node process
 * with `env` added to this process's environment, and resolves once it listens. Running it apart
 * from the load generator keeps the two off one event loop (the OS can give each its own core).
 */
export function spawnGateway(env: Record<string, string>, timeoutMs = 60_000): Promise<GatewayProcess> {
  const proc = spawnTsx('bench/lib/gateway-main.ts', { PORT: '0', LOG_LEVEL: 'warn', ...env }, [
    'ignore',
    'pipe',
    'inherit',
    'ipc',
  ]);
  const child = proc.child;
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
            pid: proc.pid,
            profile: (fn) => profileChild(child, fn),
            stop: proc.stop,
          });
        } else process.stderr.write(line + '\n');
      } catch {
        process.stderr.write(line + '\n');
      }
    });
  });
}
