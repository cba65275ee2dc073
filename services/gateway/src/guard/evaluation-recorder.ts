import { TOPICS, type TopicMessage } from '@agent-warden/contracts';
import { BusUnavailableError, type EventBus } from '@agent-warden/bus';
import { AppError } from '@agent-warden/http';
import type { Logger } from '@agent-warden/observability';

/** One evaluation record as published on `guardrail-evaluations` (key = evaluationId). */
export type EvaluationMessage = TopicMessage<typeof TOPICS.guardrailEvaluations>;

/** Counters of a recorder (records, not bytes). */
export interface RecorderStats {
  /** Records held in memory now, including those of the publish in flight. */
  buffered: number;
  /** Capacity of the buffer (records). */
  capacity: number;
  /** Approximate bytes held now (request body sizes of the buffered evaluations). */
  bufferedBytes: number;
  /** Byte budget of the buffer. */
  capacityBytes: number;
  /** Records the event log acknowledged since start. */
  published: number;
  /** Records refused with 503 because the buffer was full or the recorder closed (the client retries them). */
  rejected: number;
  /** Publishes that failed and were retried (their records stayed in the buffer). */
  failedFlushes: number;
  /** Records still unconfirmed when `close` hit its deadline (logged with their ids). */
  lost: number;
}

/**
 * Where the evaluate route records an evaluation. `record` throws an {@link AppError}
 * `event_log_unavailable` (503, `Retry-After`) when the record cannot be taken; once it returned
 * (or resolved), the record will reach the event log (or is counted and logged as lost).
 */
export interface EvaluationSink {
  /** `bytes`: approximate size of the record (the request body's length), for the byte budget. */
  record(message: EvaluationMessage, bytes?: number): void | Promise<void>;
  /** False while `record` would refuse (used by `/ready`). */
  hasRoom(): boolean;
  /** Counters for logs and `/ready`; absent on sinks that hold nothing. */
  stats?(): RecorderStats;
}

/** 503 `event_log_unavailable` with `Retry-After: 1`: the evaluation cannot be recorded now. */
export const unavailable = (
  detail = 'the event log cannot take evaluation records now; retry',
  cause?: unknown,
): AppError => new AppError('event_log_unavailable', detail, { retryAfterSeconds: 1, cause });

/**
 * Write-through sink: each `record` awaits the publish (answers only after the log has it). Used
 * where the bus itself is write-through and fast enough, i.e. standalone's in-process bus, whose
 * publish resolves once the projector stored the record.
 */
export function writeThroughSink(bus: EventBus): EvaluationSink {
  return {
    async record(message) {
      try {
        await bus.publish(TOPICS.guardrailEvaluations, [message]);
      } catch (err) {
        if (err instanceof BusUnavailableError)
          throw unavailable('the evaluation could not be recorded; retry', err);
        throw err;
      }
    },
    // Always tries: the bus reports itself healthy again only after a write succeeded.
    hasRoom: () => true,
  };
}

/** Settings of an {@link EvaluationRecorder}. */
export interface EvaluationRecorderOptions {
  /** Most records held in memory (published or not yet confirmed); past it `record` answers 503. */
  capacity: number;
  /**
   * Most bytes held (sum of the sizes given to `record`); past it `record` answers 503. A record
   * larger than the budget is still taken when the buffer is empty.
   */
  capacityBytes: number;
  /** Longest a record waits before its batch is published, ms (a full batch goes at once). */
  flushIntervalMs: number;
  /** Most records per publish. */
  maxBatch: number;
  /** First delay before retrying a failed publish, ms (doubles up to `maxRetryDelayMs`). */
  retryDelayMs?: number;
  /** Longest delay between retries, ms (default 2000). */
  maxRetryDelayMs?: number;
  logger: Logger;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `p`'s outcome, or false when `ms` passed first (the timer is cleared either way). */
async function within(p: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Records guardrail evaluations off the request path (docs/decisions.md "Evaluations are recorded
 * off the request path"): `record` appends to a bounded in-memory buffer and returns at once; the
 * buffer is published in batches of up to `maxBatch`, one `bus.publish` at a time, at most
 * `flushIntervalMs` after the first record of a batch arrived. A failed publish leaves its records
 * at the head of the buffer and is retried with backoff, so order is kept and nothing is dropped;
 * while the buffer is full (the log has been down for long), `record` throws 503
 * `event_log_unavailable` with `Retry-After` and the client retries: memory stays bounded and no
 * evaluation is lost silently. `close` publishes what is left, within a deadline.
 * Duplicates (a publish that timed out but had landed, then retried) are removed by the projector
 * (`guardrail_evaluations.id` = evaluationId, `ON CONFLICT DO NOTHING`).
 */
export class EvaluationRecorder implements EvaluationSink {
  private readonly buffer: EvaluationMessage[] = [];
  /** Size of each buffered record (same order as `buffer`), bytes. */
  private readonly sizes: number[] = [];
  private bufferedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<boolean> | undefined;
  private closed = false;
  private retryDelayMs: number;
  private published = 0;
  private rejected = 0;
  private failedFlushes = 0;
  private lost = 0;

  constructor(
    private readonly bus: Pick<EventBus, 'publish'>,
    private readonly options: EvaluationRecorderOptions,
  ) {
    if (options.capacity < options.maxBatch)
      throw new Error('EvaluationRecorder: capacity must be at least maxBatch');
    this.retryDelayMs = options.retryDelayMs ?? 100;
  }

  /**
   * Appends `message`; never waits for the log. Throws {@link AppError} `event_log_unavailable`
   * (503, Retry-After 1 s) when the buffer holds `capacity` records, when `bytes` (the record's
   * approximate size) would take it past `capacityBytes`, or when the recorder is closed.
   */
  record(message: EvaluationMessage, bytes = 0): void {
    if (this.closed) {
      this.rejected += 1;
      throw unavailable('the gateway is shutting down; retry');
    }
    if (!this.fits(bytes)) {
      this.rejected += 1;
      throw unavailable();
    }
    this.buffer.push(message);
    this.sizes.push(bytes);
    this.bufferedBytes += bytes;
    if (this.current) return; // the flush in flight schedules the next one
    if (this.buffer.length >= this.options.maxBatch) {
      this.cancelTimer();
      this.flushInBackground();
    } else this.schedule(this.options.flushIntervalMs);
  }

  hasRoom(): boolean {
    return !this.closed && this.fits(0);
  }

  private fits(bytes: number): boolean {
    if (this.buffer.length === 0) return true;
    return (
      this.buffer.length < this.options.capacity && this.bufferedBytes + bytes <= this.options.capacityBytes
    );
  }

  stats(): RecorderStats {
    return {
      buffered: this.buffer.length,
      capacity: this.options.capacity,
      bufferedBytes: this.bufferedBytes,
      capacityBytes: this.options.capacityBytes,
      published: this.published,
      rejected: this.rejected,
      failedFlushes: this.failedFlushes,
      lost: this.lost,
    };
  }

  /**
   * Stops taking records (later `record` calls throw 503) and publishes the buffer, retrying
   * failures, until it is empty or `deadlineMs` (ms) passed. Records still unconfirmed then are
   * counted as `lost` and their evaluation ids logged at error level. Resolves with the final
   * counters (also logged); never throws.
   */
  async close(deadlineMs = 5_000): Promise<RecorderStats> {
    this.closed = true;
    this.cancelTimer();
    const until = Date.now() + deadlineMs;
    const remaining = () => until - Date.now();
    let delay = this.options.retryDelayMs ?? 100;
    while (this.buffer.length > 0 && remaining() > 0) {
      const attempt = this.current ?? this.flushOnce();
      const ok = await within(attempt, remaining());
      if (!ok && this.buffer.length > 0 && remaining() > 0 && !this.current) {
        await sleep(Math.min(delay, remaining()));
        delay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 2_000);
      }
    }
    if (this.buffer.length > 0) {
      this.lost = this.buffer.length;
      this.options.logger.error(
        { lost: this.lost, evaluationIds: this.buffer.map((m) => m.key), deadlineMs },
        'evaluation records not confirmed by the event log before the shutdown deadline',
      );
    }
    const stats = this.stats();
    this.options.logger.info({ evaluationRecorder: stats }, 'evaluation recorder closed');
    return stats;
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushInBackground();
    }, delayMs);
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One flush, then the next one: at once for a full batch, after the interval (or backoff) else. */
  private flushInBackground(): void {
    if (this.current || this.buffer.length === 0) return;
    void this.flushOnce().then((ok) => {
      if (this.closed || this.buffer.length === 0) return;
      if (!ok) {
        this.schedule(this.retryDelayMs);
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.options.maxRetryDelayMs ?? 2_000);
      } else if (this.buffer.length >= this.options.maxBatch) this.flushInBackground();
      else this.schedule(this.options.flushIntervalMs);
    });
  }

  /** Publishes the head of the buffer (up to `maxBatch`); removes it only once the log has it. */
  private flushOnce(): Promise<boolean> {
    const run = this.publishHead().finally(() => {
      this.current = undefined;
    });
    this.current = run;
    return run;
  }

  private async publishHead(): Promise<boolean> {
    const batch = this.buffer.slice(0, this.options.maxBatch);
    try {
      await this.bus.publish(TOPICS.guardrailEvaluations, batch);
      this.buffer.splice(0, batch.length);
      for (const b of this.sizes.splice(0, batch.length)) this.bufferedBytes -= b;
      this.published += batch.length;
      this.retryDelayMs = this.options.retryDelayMs ?? 100;
      return true;
    } catch (err) {
      this.failedFlushes += 1;
      this.options.logger.warn(
        { err, records: batch.length, buffered: this.buffer.length },
        'evaluation records not published; kept for a retry',
      );
      return false;
    }
  }
}
