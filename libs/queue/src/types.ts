import type { QueueName, QueuePayloads } from '@agent-warden/contracts';

/** Options of one {@link JobQueue.enqueue} call. */
export interface EnqueueOptions {
  /**
   * Idempotency id: while a job with this id is still known to the queue (pending, active, or kept
   * as completed/failed), another enqueue with the same id is ignored and returns that id.
   * Must not be empty, all digits or contain `:` (BullMQ's rules, enforced by both implementations).
   * Cannot be combined with `debounceKey`.
   */
  jobId?: string;
  /** Run the job no earlier than this many ms from now (default 0: at once; rounded up to whole ms). */
  delayMs?: number;
  /**
   * Debounce key (needs `delayMs > 0`): one pending job per key and queue. While the job for this
   * key is still waiting out its delay, a new enqueue with the same key replaces it: the job is
   * pushed back to now + `delayMs` and carries the new payload. Once the job is due (waiting for a
   * worker, active, or retrying), a new enqueue schedules a new job.
   */
  debounceKey?: string;
}

/** What a handler learns about the job besides its payload. */
export interface JobInfo {
  /** The job's id (the `jobId` given to enqueue, or one made by the queue). */
  id: string;
  /** 1 on the first try, 2 on the first retry, … up to the processor's `attempts`. */
  attempt: number;
}

/**
 * Processes one job. Resolving completes the job; throwing fails this attempt: the job is retried
 * after a backoff until the processor's `attempts` are used up, then kept as failed with the error.
 */
export type JobHandler<N extends QueueName> = (payload: QueuePayloads[N], job: JobInfo) => Promise<void>;

/** Options of one {@link JobQueue.process} call (the processor owns the retry policy). */
export interface ProcessOptions {
  /** Jobs handled in parallel by this processor (default 1). */
  concurrency?: number;
  /** Tries per job, the first included (default 3, at most {@link MAX_ATTEMPTS}). */
  attempts?: number;
  /** Delay before the first retry in ms; doubles with every further retry (default 1000). */
  backoffMs?: number;
}

/** A running processor. */
export interface Processor {
  /** Stops taking jobs and resolves once the jobs in progress have finished. Idempotent. */
  close(): Promise<void>;
}

/**
 * Jobs of one queue by state. `completed` and `failed` count the jobs the queue still keeps
 * (see the implementations' `keepCompleted` / `keepFailed`), not every job ever run.
 */
export interface QueueCounts {
  /** Due, waiting for a free worker. */
  waiting: number;
  /** Not due yet: scheduled with a delay, debounced, or waiting out a retry backoff. */
  delayed: number;
  /** Being handled now. */
  active: number;
  completed: number;
  failed: number;
}

/** A job that used up its attempts, as kept by the queue. */
export interface FailedJob<N extends QueueName = QueueName> {
  id: string;
  queue: N;
  payload: QueuePayloads[N];
  /** Message of the error thrown by the last attempt. */
  error: string;
  /** Stack of that error, when there was one. */
  stack?: string;
  /** Attempts made (equals the processor's `attempts` unless it was unrecoverable). */
  attempts: number;
  /** When it failed for good, ISO 8601. */
  failedAt: string;
}

/**
 * The job queue: `enqueue` / `process` (docs/architecture.md#two-ways-to-run). Two implementations:
 * BullMQ on Redis (stack) and in-process (standalone); nothing above them knows which one runs.
 * Queue names and payload types come from `QueuePayloads` in `@agent-warden/contracts`.
 * Delivery is at least once: handlers must be idempotent.
 */
export interface JobQueue {
  /**
   * Adds a job and resolves with its id once the queue holds it.
   * @throws InvalidJobOptionsError when the options break the rules of {@link EnqueueOptions}
   * @throws QueueUnavailableError when the queue is closed or cannot take the job in time (retriable)
   */
  enqueue<N extends QueueName>(name: N, payload: QueuePayloads[N], options?: EnqueueOptions): Promise<string>;
  /**
   * Starts handling jobs of `name`. Several processors (in this or other processes) may serve one
   * queue; each job goes to one of them.
   * @throws InvalidJobOptionsError when the options are out of range
   * @throws QueueUnavailableError when the queue is closed
   */
  process<N extends QueueName>(name: N, handler: JobHandler<N>, options?: ProcessOptions): Promise<Processor>;
  /**
   * Removes the job of `name` still waiting out its delay under `debounceKey` (see
   * {@link EnqueueOptions.debounceKey}), e.g. the intelligence of a session that was just deleted.
   * A job already due, running or retrying is left alone (its handler must cope with the missing
   * data). Resolves true when a job was removed.
   * @throws QueueUnavailableError when the queue is closed or its store cannot be reached (retriable)
   */
  dropPending(name: QueueName, debounceKey: string): Promise<boolean>;
  /** Jobs of `name` by state. */
  counts(name: QueueName): Promise<QueueCounts>;
  /** The most recent failed jobs of `name` (newest first, at most `limit`) with their errors. */
  failed<N extends QueueName>(name: N, limit: number): Promise<FailedJob<N>[]>;
  /** Closes every processor started here (waiting for jobs in progress), then the connections. Idempotent. */
  close(): Promise<void>;
}

/** Highest `attempts` a processor may ask for. */
export const MAX_ATTEMPTS = 100;

/** Options of enqueue or process are out of range or contradict each other; not retriable. */
export class InvalidJobOptionsError extends Error {
  readonly code = 'invalid_job_options';
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidJobOptionsError';
  }
}

/** The queue is closed or its store (Redis) cannot take the job now; retriable. */
export class QueueUnavailableError extends Error {
  readonly code = 'queue_unavailable';
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QueueUnavailableError';
  }
}
