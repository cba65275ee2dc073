import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './env';

/** A TypeScript entry point running in its own Node process. */
export interface NodeChild {
  child: ChildProcess;
  pid: number;
  /** SIGTERM and wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Resolves when `child` has exited. */
function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/**
 * Runs `file` (relative to the repository root) with `node --import tsx` — one process, so its
 * pid is the one doing the work — with `env` added to this process's environment.
 */
export function spawnTsx(
  file: string,
  env: Record<string, string>,
  stdio: ('ignore' | 'pipe' | 'inherit' | 'ipc')[] = ['ignore', 'inherit', 'inherit'],
): NodeChild {
  // BENCH_CHILD_NODE_FLAGS: extra node flags for the child (e.g. `--trace-gc`, which NODE_OPTIONS refuses).
  const flags = (process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio,
  });
  return {
    child,
    pid: child.pid!,
    stop: async (graceMs = 10_000) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await waitExit(child);
      clearTimeout(kill);
    },
  };
}
