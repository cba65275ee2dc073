import { percentile } from '../lib/stats';

/** Latencies of an open-loop run, ms (measured window only). */
export interface OpenLoopResult {
  rate: number;
  seconds: number;
  requests: number;
  errors: number;
  firstError?: string;
  /** From each request's scheduled send time to its answer (includes any queueing in the client). */
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** From the actual send to the answer (service time), p99. */
  serviceP99: number;
  /** Most requests outstanding at once. */
  maxInFlight: number;
  /** The measured latencies (from the due time) and service times, ms, to merge runs. */
  latencies: number[];
  serviceTimes: number[];
}

/** A result from its samples (ms): the percentiles are computed here, whatever generator measured them. */
export function openLoopResult(o: {
  rate: number;
  seconds: number;
  latencies: number[];
  serviceTimes: number[];
  errors: number;
  firstError?: string;
  maxInFlight: number;
}): OpenLoopResult {
  const { latencies, serviceTimes } = o;
  return {
    rate: o.rate,
    seconds: o.seconds,
    requests: latencies.length,
    errors: o.errors,
    firstError: o.firstError,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: percentile(latencies, 100),
    serviceP99: percentile(serviceTimes, 99),
    maxInFlight: o.maxInFlight,
    latencies,
    serviceTimes,
  };
}

/** One result from several runs of the same load (e.g. interleaved rounds): percentiles of all samples. */
export function mergeOpenLoop(runs: OpenLoopResult[]): OpenLoopResult {
  return openLoopResult({
    rate: runs[0]?.rate ?? Number.NaN,
    seconds: runs.reduce((a, r) => a + r.seconds, 0),
    latencies: runs.flatMap((r) => r.latencies),
    serviceTimes: runs.flatMap((r) => r.serviceTimes),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    firstError: runs.find((r) => r.firstError)?.firstError,
    maxInFlight: Math.max(...runs.map((r) => r.maxInFlight)),
  });
}

/**
 * Open-loop load: request `i` is due at `start + i / rate`, whatever the state of the earlier
 * ones, so a slow answer does not delay later sends (no coordinated omission). A 1 ms timer sends
 * every due request; latency is counted from the due time. The first `warmupMs` are not measured;
 * `onMeasureStart` marks the start of the measured window.
 */
export async function openLoop(o: {
  rate: number;
  warmupMs: number;
  durationMs: number;
  send: () => Promise<void>;
  /** Called when the first measured request is sent (e.g. to start CPU accounting). */
  onMeasureStart?: () => void;
}): Promise<OpenLoopResult> {
  const interval = 1000 / o.rate;
  const warm = Math.round((o.warmupMs / 1000) * o.rate);
  const total = warm + Math.round((o.durationMs / 1000) * o.rate);
  const latencies: number[] = [];
  const service: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  let done = 0;
  let i = 0;
  const start = performance.now() + 2;
  await new Promise<void>((resolve) => {
    const finish = () => {
      done += 1;
      if (done === total) resolve();
    };
    const fire = (scheduled: number, measured: boolean) => {
      const sent = performance.now();
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      o.send()
        .then(
          () => {
            const t = performance.now();
            if (measured) {
              latencies.push(t - scheduled);
              service.push(t - sent);
            }
          },
          (err: unknown) => {
            const t = performance.now();
            if (measured) {
              errors += 1;
              firstError ??= err instanceof Error ? err.message : String(err);
              latencies.push(t - scheduled);
              service.push(t - sent);
            }
          },
        )
        .finally(() => {
          inFlight -= 1;
          finish();
        });
    };
    const tick = () => {
      const now = performance.now();
      while (i < total && start + i * interval <= now) {
        if (i === warm) o.onMeasureStart?.();
        fire(start + i * interval, i >= warm);
        i += 1;
      }
      if (i < total) setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
  });
  return openLoopResult({
    rate: o.rate,
    seconds: o.durationMs / 1000,
    latencies,
    serviceTimes: service,
    errors,
    firstError,
    maxInFlight,
  });
}
