import { percentile } from './stats';

/** One sender's unit of work: sends a batch and resolves with the number of events accepted. */
export type SendBatch = (worker: number) => Promise<number>;

/** Outcome of a closed-loop run (measured window only; the warm-up is not counted). */
export interface ClosedLoopResult {
  concurrency: number;
  seconds: number;
  events: number;
  requests: number;
  errors: number;
  eventsPerSecond: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
  /** First error message seen, if any. */
  firstError?: string;
}

/**
 * Runs `concurrency` senders in a closed loop (each sends its next batch as soon as the previous
 * one resolved) for `warmupMs` + `durationMs`; counts the batches that completed inside the
 * measured window (throughput = completions per second of the window). `onMeasureStart` is
 * called when the window opens (e.g. to start CPU accounting).
 */
export async function closedLoop(o: {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  send: SendBatch;
  onMeasureStart?: () => void;
}): Promise<ClosedLoopResult> {
  const start = performance.now();
  const windowStart = start + o.warmupMs;
  const windowEnd = windowStart + o.durationMs;
  let events = 0;
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const latencies: number[] = [];
  const timer = setTimeout(() => o.onMeasureStart?.(), o.warmupMs);
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, worker) => {
      while (performance.now() < windowEnd) {
        const t0 = performance.now();
        let n = 0;
        let failed = false;
        try {
          n = await o.send(worker);
        } catch (err) {
          failed = true;
          firstError ??= err instanceof Error ? err.message : String(err);
        }
        const t1 = performance.now();
        if (t1 >= windowStart && t1 <= windowEnd) {
          requests += 1;
          latencies.push(t1 - t0);
          if (failed) errors += 1;
          else events += n;
        }
        if (failed) await new Promise((r) => setTimeout(r, 50));
      }
    }),
  );
  clearTimeout(timer);
  const seconds = o.durationMs / 1000;
  return {
    concurrency: o.concurrency,
    seconds,
    events,
    requests,
    errors,
    eventsPerSecond: events / seconds,
    latencyP50Ms: percentile(latencies, 50),
    latencyP95Ms: percentile(latencies, 95),
    firstError,
  };
}

/** Round-robin over a fixed pool (pre-built request bodies or record batches). */
export class Pool<T> {
  private i = 0;
  constructor(private readonly items: T[]) {
    if (items.length === 0) throw new Error('empty pool');
  }
  /** The next item, wrapping around. */
  next(): T {
    const item = this.items[this.i]!;
    this.i = (this.i + 1) % this.items.length;
    return item;
  }
}
