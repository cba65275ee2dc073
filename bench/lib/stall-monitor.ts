import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';

/** One event-loop stall seen by {@link startStallMonitor}: when (ms since start) and how long (ms). */
export interface Stall {
  atMs: number;
  ms: number;
  /** GC pauses (kind:ms) that ended within the stall window. */
  gc: string[];
}

/** What {@link startStallMonitor} saw: event-loop delay percentiles (ms), stalls, GC pause totals. */
export interface StallReport {
  delay: { p50: number; p99: number; max: number };
  stalls: Stall[];
  gcByKind: Record<string, { count: number; totalMs: number; maxMs: number }>;
}

const GC_KIND: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental', 8: 'weakcb' };

/**
 * Diagnostics for a bench child: a `monitorEventLoopDelay` histogram, a 1 ms ticker that records
 * every gap longer than `stallMs` (ms) with the GC pauses that fell into it. Call the returned
 * function to stop and get the report.
 */
export function startStallMonitor(stallMs = 4): () => StallReport {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const gcs: { end: number; kind: string; ms: number }[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const detail = (e as unknown as { detail?: { kind?: number } }).detail;
      const kind = GC_KIND[detail?.kind ?? 0] ?? 'other';
      gcs.push({ end: e.startTime + e.duration, kind, ms: e.duration });
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const stalls: { start: number; end: number }[] = [];
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    if (now - last > stallMs + 1) stalls.push({ start: last, end: now });
    last = now;
  }, 1);
  return () => {
    clearInterval(tick);
    h.disable();
    obs.disconnect();
    const gcByKind: StallReport['gcByKind'] = {};
    for (const g of gcs) {
      const k = (gcByKind[g.kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      k.count += 1;
      k.totalMs += g.ms;
      k.maxMs = Math.max(k.maxMs, g.ms);
    }
    return {
      delay: { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 },
      stalls: stalls.map((s) => ({
        atMs: Math.round(s.start - t0),
        ms: Math.round((s.end - s.start) * 10) / 10,
        gc: gcs
          .filter((g) => g.end >= s.start - 1 && g.end <= s.end + 1)
          .map((g) => `${g.kind}:${g.ms.toFixed(1)}`),
      })),
      gcByKind,
    };
  };
}
