import { INGEST_LIMITS } from '@agent-warden/contracts';
import type { WardenApi } from './api';
import { WardenError } from './errors';
import { errorFields, type Logger } from './logger';
import type { BoundedQueue } from './queue';
import type { QueuedEvent } from './recorder';
import type { IdentitySource } from './registration';

/** What one `flush()` sent and lost. */
export interface FlushResult {
  /** Events the service accepted. */
  sent: number;
  /** Events the service refused one by one (listed in the 202 answer's `rejected`; logged). */
  rejected: number;
  /** Events refused by the full queue since the previous flush (never queued). */
  dropped: number;
  /** Events given up after a non-retryable error (401, 403, 400, 413). */
  failed: number;
  /** Events still held after this flush (kept for the next one when the service was unreachable). */
  queued: number;
  /** The error that stopped or spoiled this flush, if any (`retryable` says whether events were kept). */
  error?: WardenError;
}

/** Running totals since the client was made (`queued` is the current queue size). */
export interface ClientStats {
  queued: number;
  sent: number;
  dropped: number;
  failed: number;
  rejected: number;
  /** HTTP retries of any request (events, registration, guard, approvals). */
  retries: number;
}

/** Largest body the client builds, bytes (kept under the service's limit with room for the envelope). */
const MAX_BATCH_BYTES = Math.floor(INGEST_LIMITS.maxBodyBytes * 0.8);
/** How many rejected events of one batch are logged one by one. */
const MAX_REJECTIONS_LOGGED = 10;

/** Settings of a {@link Flusher}. */
export interface FlusherOptions {
  maxBatchSize: number;
  flushIntervalMs: number;
}

/**
 * Sends queued events in batches of at most `maxBatchSize` (and ~4 MB). One flush loop at a time:
 * a `flush()` during a running loop waits for it and then drains what is left (unless that loop
 * stopped because the service is unreachable). Flushes on a timer (`unref()`ed), on demand, and
 * early when `maxBatchSize` events wait. Never rejects: errors are logged and reported in the
 * {@link FlushResult}.
 */
export class Flusher {
  /** Running totals (see {@link ClientStats}); `retries` is bumped by the transport. */
  readonly totals = { sent: 0, dropped: 0, failed: 0, rejected: 0, retries: 0 };
  private running: Promise<FlushResult> | undefined;
  private followUp: Promise<FlushResult> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unreportedDrops = 0;
  private lastFlushFailed = false;

  constructor(
    private readonly queue: BoundedQueue<QueuedEvent>,
    private readonly api: WardenApi,
    private readonly identity: IdentitySource,
    private readonly opts: FlusherOptions,
    private readonly logger: Logger,
  ) {}

  /** Queues an event; counts and logs it when the queue is full. Starts an early flush at `maxBatchSize`. */
  enqueue(item: QueuedEvent): void {
    if (!this.queue.push(item)) {
      this.totals.dropped++;
      this.unreportedDrops++;
      if (this.totals.dropped === 1 || this.totals.dropped % 1000 === 0) {
        this.logger.warn('warden queue full, dropping new events', {
          dropped: this.totals.dropped,
          queued: this.queue.size,
          type: item.event.type,
        });
      }
      return;
    }
    if (this.queue.waiting >= this.opts.maxBatchSize && !this.running && !this.lastFlushFailed)
      void this.flush();
  }

  /** Sends what is queued; see {@link FlushResult}. Never rejects. */
  flush(): Promise<FlushResult> {
    if (!this.running) return this.begin();
    if (!this.followUp) {
      const first = this.running;
      this.followUp = first.then(async (a) => {
        this.followUp = undefined;
        if (a.error?.retryable) return a;
        return mergeResults(a, await this.flush());
      });
    }
    return this.followUp;
  }

  /** Starts the periodic flush (idempotent). The timer does not keep the process alive. */
  startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.queue.waiting > 0 && !this.running) void this.flush();
    }, this.opts.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the periodic flush. */
  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Current totals. */
  stats(): ClientStats {
    return { queued: this.queue.size, ...this.totals };
  }

  private begin(): Promise<FlushResult> {
    const p: Promise<FlushResult> = this.drain().finally(() => {
      if (this.running === p) this.running = undefined;
    });
    this.running = p;
    return p;
  }

  private async drain(): Promise<FlushResult> {
    const result: FlushResult = { sent: 0, rejected: 0, dropped: 0, failed: 0, queued: 0 };
    try {
      while (this.queue.waiting > 0) {
        let ids;
        try {
          ids = await this.identity.ensure();
        } catch (e) {
          result.error = asWardenError(e);
          if (!result.error.retryable) this.giveUp(this.queue.take(Infinity), result, 'registration failed');
          break;
        }
        const batch = this.queue.take(this.opts.maxBatchSize, MAX_BATCH_BYTES, (i) => i.bytes);
        const events = batch.map((i) => ({
          ...i.event,
          agentId: ids.agentId,
          agentVersionId: ids.agentVersionId,
        }));
        try {
          const res = await this.api.sendEvents(events);
          this.queue.settle(batch);
          result.sent += res.accepted;
          result.rejected += res.rejected.length;
          this.totals.sent += res.accepted;
          this.totals.rejected += res.rejected.length;
          for (const r of res.rejected.slice(0, MAX_REJECTIONS_LOGGED)) {
            this.logger.warn('warden event rejected', {
              index: r.index,
              eventId: r.id,
              type: events[r.index]?.type,
              code: r.code,
              reason: r.message,
            });
          }
        } catch (e) {
          const err = asWardenError(e);
          result.error = err;
          if (err.retryable) {
            this.queue.putBack(batch);
            this.logger.warn('warden flush failed, events kept for the next flush', {
              queued: this.queue.size,
              ...errorFields(err),
            });
            break;
          }
          this.giveUp(batch, result, 'events refused');
        }
      }
    } catch (e) {
      result.error = asWardenError(e);
      this.logger.error('warden flush crashed', errorFields(e));
    }
    result.dropped = this.unreportedDrops;
    this.unreportedDrops = 0;
    result.queued = this.queue.size;
    this.lastFlushFailed = result.error?.retryable === true;
    return result;
  }

  private giveUp(batch: QueuedEvent[], result: FlushResult, why: string): void {
    this.queue.settle(batch);
    result.failed += batch.length;
    this.totals.failed += batch.length;
    this.logger.error(`warden ${why}, events lost`, { lost: batch.length, ...errorFields(result.error) });
  }
}

function mergeResults(a: FlushResult, b: FlushResult): FlushResult {
  const merged: FlushResult = {
    sent: a.sent + b.sent,
    rejected: a.rejected + b.rejected,
    dropped: a.dropped + b.dropped,
    failed: a.failed + b.failed,
    queued: b.queued,
  };
  const error = b.error ?? a.error;
  if (error) merged.error = error;
  return merged;
}

function asWardenError(e: unknown): WardenError {
  return e instanceof WardenError ? e : new WardenError('api_error', String(e), { cause: e });
}
