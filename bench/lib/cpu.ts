import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc times (USER_HZ; 100 on every common Linux). */
const TICKS = 100;

/** CPU seconds (user + system) used so far by process `pid` (Linux /proc), or NaN elsewhere. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return Number.NaN;
  }
}

/** `pid` and all its descendants (Linux /proc/<pid>/task/<tid>/children), or just `pid` elsewhere. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i += 1) {
    try {
      for (const tid of readdirSync(`/proc/${out[i]}/task`))
        for (const c of readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim().split(/\s+/))
          if (c) out.push(Number(c));
    } catch {
      /* gone, or not Linux */
    }
  }
  return out;
}

/** CPU seconds used so far by `pid` and its descendants (e.g. a `tsx` launcher and the Node it runs). */
export function treeCpuSeconds(pid: number): number {
  return processTree(pid).reduce((a, p) => a + (processCpuSeconds(p) || 0), 0);
}

/** Busy and total jiffies of the whole machine (all cores), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** CPU use over a window, as % of one core per process and % of the whole machine. */
export interface CpuWindow {
  /** % of one core used by each watched process during the window. */
  processes: Record<string, number>;
  /** % of all cores busy (any process) during the window. */
  machineBusy: number;
}

/**
 * Starts measuring CPU use of the given processes (name → pid; the names in `withDescendants` count
 * their child processes too) and of the machine; call the returned function at the end of the
 * window to read the percentages.
 */
export function cpuWindow(pids: Record<string, number>, withDescendants: string[] = []): () => CpuWindow {
  const t0 = performance.now();
  const m0 = machineTicks();
  const read = (k: string, pid: number) =>
    withDescendants.includes(k) ? treeCpuSeconds(pid) : processCpuSeconds(pid);
  const p0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, read(k, pid)]));
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const m1 = machineTicks();
    const processes: Record<string, number> = {};
    for (const [k, pid] of Object.entries(pids))
      processes[k] = Math.round(((read(k, pid) - (p0[k] ?? 0)) / seconds) * 100);
    return { processes, machineBusy: Math.round(((m1.busy - m0.busy) / (m1.total - m0.total)) * 100) };
  };
}
