import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName, QueuePayloads } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { resolveEnqueueOptions } from './options';
import {
  MAX_ATTEMPTS,
  QueueUnavailableError,
  type EnqueueOptions,
  type FailedJob,
  type QueueCounts,
} from './types';

/**
 * Name of the backoff strategy put on every job. BullMQ calls the worker's strategy for it, so
 * the processor, not the producer, decides the delays (see `bullmq-processor.ts`).
 */
export const WARDEN_BACKOFF = 'warden-exponential';

export interface BullMqProducerOptions {
  /** Shared ioredis connection (owned by the caller). */
  connection: Redis;
  prefix: string;
  logger: Logger;
  keepCompleted: number;
  keepFailed: number;
  /** Longest an enqueue may take before it fails with {@link QueueUnavailableError}, ms. */
  enqueueTimeoutMs: number;
}

/**
 * The producing side on BullMQ: one `Queue` per queue name on one shared connection. Also reads
 * counts and failed jobs. Debounce uses BullMQ's deduplication in debounce mode
 * (`{ id, ttl: delayMs, extend: true, replace: true }`): while the job for the key is still
 * delayed, a new add removes it and adds the new one with a fresh delay and TTL.
 */
export class BullMqProducer {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(private readonly options: BullMqProducerOptions) {}

  /** Adds a job; resolves with its id (for a deduplicated add, the id of the job that stays). */
  async enqueue<N extends QueueName>(
    name: N,
    payload: QueuePayloads[N],
    options?: EnqueueOptions,
  ): Promise<string> {
    const opts = resolveEnqueueOptions(options);
    const jobOptions: JobsOptions = {
      jobId: opts.jobId,
      delay: opts.delayMs,
      // The ceiling; the processor stops earlier (worker `maxStartedAttempts`).
      attempts: MAX_ATTEMPTS,
      backoff: { type: WARDEN_BACKOFF },
      removeOnComplete: { count: this.options.keepCompleted },
      removeOnFail: { count: this.options.keepFailed },
      ...(opts.debounceKey !== undefined && {
        deduplication: { id: opts.debounceKey, ttl: opts.delayMs, extend: true, replace: true },
      }),
    };
    const job = await withTimeout(
      this.queue(name).add(name, payload, jobOptions),
      this.options.enqueueTimeoutMs,
      name,
    );
    return job.id!;
  }

  /**
   * Removes the delayed job that holds `debounceKey` (BullMQ's deduplication id) and frees the key.
   * A job that is no longer delayed is left alone; `Job.remove` refuses a locked (active) job.
   */
  async dropPending(name: QueueName, debounceKey: string): Promise<boolean> {
    const queue = this.queue(name);
    try {
      const jobId = await queue.getDeduplicationJobId(debounceKey);
      if (!jobId) return false;
      const job = await queue.getJob(jobId);
      if (!job || (await job.getState()) !== 'delayed') return false;
      await job.remove();
      await queue.removeDeduplicationKey(debounceKey);
      return true;
    } catch (err) {
      throw new QueueUnavailableError(`cannot drop the pending ${name} job`, { cause: err });
    }
  }

  async counts(name: QueueName): Promise<QueueCounts> {
    const c = await this.queue(name).getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
    return {
      waiting: c.waiting ?? 0,
      delayed: c.delayed ?? 0,
      active: c.active ?? 0,
      completed: c.completed ?? 0,
      failed: c.failed ?? 0,
    };
  }

  async failed<N extends QueueName>(name: N, limit: number): Promise<FailedJob<N>[]> {
    if (limit <= 0) return [];
    const jobs = (await this.queue(name).getFailed(0, limit - 1)) as Job<QueuePayloads[N]>[];
    return jobs
      .filter((job) => job !== undefined && job !== null)
      .map((job) => ({
        id: job.id!,
        queue: name,
        payload: job.data,
        error: job.failedReason ?? '',
        stack: job.stacktrace?.at(-1) ?? undefined,
        attempts: job.attemptsMade,
        failedAt: new Date(job.finishedOn ?? job.timestamp).toISOString(),
      }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }

  private queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.options.connection, prefix: this.options.prefix });
      queue.on('error', (err) => this.options.logger.error({ err, queue: name }, 'queue error'));
      this.queues.set(name, queue);
    }
    return queue;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, queue: QueueName): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new QueueUnavailableError(`enqueue to ${queue} timed out after ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([
    promise.catch((err: unknown) => {
      throw new QueueUnavailableError(`enqueue to ${queue} failed`, { cause: err });
    }),
    timeout,
  ]).finally(() => clearTimeout(timer));
}
