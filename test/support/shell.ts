import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The environment of a user's shell, for tests that run what a user would (a packed package in a new
 * project): this process's environment without npm lifecycle variables, the developer's `WARDEN_*`
 * and loader flags (`NODE_OPTIONS`, `NODE_PATH`, `TS_NODE_*`), plus `extra`.
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(npm_|WARDEN_|NODE_OPTIONS$|NODE_PATH$|TS_NODE_)/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Runs `cmd args` in `cwd` (no shell), up to 180 s, and resolves with its stdout and stderr.
 * @throws Error naming the command and directory, with its output, when it fails or times out.
 */
export async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = userEnv(),
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(cmd, args, { cwd, env, maxBuffer: 32 * 1024 * 1024, timeout: 180_000 });
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${cmd} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
      {
        cause: err,
      },
    );
  }
}
