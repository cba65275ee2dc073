import type { ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector';

/** One line of a CPU profile summary: self time of a function or package. */
export interface ProfileLine {
  name: string;
  ms: number;
  share: number;
}

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/** One `node:inspector` command on session `s`, as a promise of its result. */
export function post<T>(s: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    s.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))),
  );
}

/** Where a frame comes from: an npm package, a workspace package, a Node built-in, or V8. */
function bucketOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('wasm://')) return 'wasm (Prisma query compiler)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return 'node internals';
  const m = url.match(/\/(libs|services|clients|bench)\/([^/]+)/);
  return m ? `${m[1]}/${m[2]}` : url;
}

/** Self time of a profile per package and per function, largest first. */
export interface ProfileSummary {
  packages: ProfileLine[];
  functions: ProfileLine[];
}

/** Ids of the nodes under a `node:inspector` frame: the profiler's own start/stop calls. */
function profilerNodes(profile: CpuProfile): Set<number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Set<number>();
  const mark = (id: number) => {
    out.add(id);
    for (const c of byId.get(id)?.children ?? []) mark(c);
  };
  for (const n of profile.nodes) if (n.callFrame.url === 'node:inspector') mark(n.id);
  return out;
}

function summarize(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const own = profilerNodes(profile);
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (own.has(id)) return;
    const dt = profile.timeDeltas[i] ?? 0;
    const n = byId.get(id);
    const url = n?.callFrame.url ?? '';
    const fn = n?.callFrame.functionName || '(anonymous)';
    const pkg = n ? bucketOf(url, fn) : '(unknown)';
    const nm = url.lastIndexOf('node_modules/');
    const where = !url
      ? pkg
      : nm >= 0
        ? url.slice(nm + 'node_modules/'.length)
        : `${pkg}/${url.split('/').pop()}`;
    packages.set(pkg, (packages.get(pkg) ?? 0) + dt);
    // Line numbers are right for npm packages (plain JS); tsx-compiled workspace files have none useful.
    const f = nm >= 0 ? `${fn} (${where}:${(n?.callFrame.lineNumber ?? 0) + 1})` : `${fn} (${where})`;
    functions.set(f, (functions.get(f) ?? 0) + dt);
    total += dt;
  });
  const lines = (m: Map<string, number>) =>
    [...m].map(([name, us]) => ({ name, ms: us / 1000, share: us / total })).sort((a, b) => b.ms - a.ms);
  return { packages: lines(packages), functions: lines(functions) };
}

/**
 * Starts sampling this process's CPU (V8 profiler through `node:inspector`, 1 ms interval).
 * Resolves with a function that stops it and returns the self time per package (npm package,
 * workspace package, Node internals, GC, idle) and per function, largest first.
 */
export async function startProfiler(): Promise<() => Promise<ProfileSummary>> {
  const s = new Session();
  s.connect();
  await post(s, 'Profiler.enable');
  await post(s, 'Profiler.setSamplingInterval', { interval: 1000 });
  await post(s, 'Profiler.start');
  return async () => {
    try {
      return summarize((await post<{ profile: CpuProfile }>(s, 'Profiler.stop')).profile);
    } finally {
      s.disconnect();
    }
  };
}

/** Profiles this process while `fn` runs (see {@link startProfiler}). */
export async function profileWhile<T>(fn: () => Promise<T>): Promise<{ result: T; profile: ProfileSummary }> {
  const stop = await startProfiler();
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    await stop();
    throw err;
  }
  return { result, profile: await stop() };
}

/**
 * Profiles a child process's CPU while `fn` runs, over IPC: sends `profile-start`, waits for
 * `{ profiling }`, runs `fn`, sends `profile-stop` and resolves with the `{ profile }` it answers
 * (the child runs {@link startProfiler}; see bench/lib/gateway-main.ts).
 */
export async function profileChild(child: ChildProcess, fn: () => Promise<unknown>): Promise<ProfileSummary> {
  const reply = <K extends string>(key: K) =>
    new Promise<Record<K, unknown>>((res) => {
      const on = (m: unknown) => {
        if (m && typeof m === 'object' && key in m) {
          child.off('message', on);
          res(m as Record<K, unknown>);
        }
      };
      child.on('message', on);
    });
  const started = reply('profiling');
  child.send('profile-start');
  await started;
  await fn();
  const done = reply('profile');
  child.send('profile-stop');
  return (await done).profile as ProfileSummary;
}

/**
 * The child side of {@link profileChild}: answers `profile-start` (starts the profiler, replies
 * `{ profiling: true }`) and `profile-stop` (replies `{ profile }`) on this process's IPC channel.
 */
export function answerProfileRequests(): void {
  let stopProfiler: (() => Promise<ProfileSummary>) | undefined;
  process.on('message', (m: unknown) => {
    if (m === 'profile-start')
      void startProfiler().then((stop) => {
        stopProfiler = stop;
        process.send?.({ profiling: true });
      });
    else if (m === 'profile-stop' && stopProfiler)
      void stopProfiler().then((top) => process.send?.({ profile: top }));
  });
}
