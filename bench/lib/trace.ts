import type { EventBus } from '@agent-warden/bus';

/** One batch a consumer handler completed. */
export interface BatchTrace {
  partition: number;
  records: number;
  /** `performance.now()` when the handler was called and when it resolved. */
  startMs: number;
  endMs: number;
}

/**
 * Wraps `bus` so that every batch handled by a subscription is recorded in `traces` (size and
 * handler time); everything else is passed through unchanged.
 */
export function tracingBus(bus: EventBus, traces: BatchTrace[]): EventBus {
  return {
    publish: (topic, messages) => bus.publish(topic, messages),
    subscribe: (opts) =>
      bus.subscribe({
        ...opts,
        handler: async (batch) => {
          const startMs = performance.now();
          await opts.handler(batch);
          traces.push({
            partition: batch.partition,
            records: batch.records.length,
            startMs,
            endMs: performance.now(),
          });
        },
      }),
    isHealthy: () => bus.isHealthy(),
    close: () => bus.close(),
  };
}
