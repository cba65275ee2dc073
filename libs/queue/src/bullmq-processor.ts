import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName, QueuePayloads } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { WARDEN_BACKOFF } from './bullmq-producer';
import { closeRedis } from './redis';
import { backoffDelayMs, resolveProcessOptions, toError } from './options';
import type { JobHandler, ProcessOptions, Processor } from './types';

export interface BullMqProcessorOptions<N extends QueueName> {
  name: N;
  handler: JobHandler<N>;
  /** A connection of its own with `maxRetriesPerRequest: null` (BullMQ's rule for workers); closed with the processor. */
  connection: Redis;
  prefix: string;
  logger: Logger;
  process?: ProcessOptions;
}

/**
 * The processing side on BullMQ: one `Worker` for one queue name. The retry policy is the
 * processor's: jobs carry a high `attempts` ceiling and the {@link WARDEN_BACKOFF} backoff type, the
 * worker stops retrying after `attempts` starts (`maxStartedAttempts`) and computes the backoff
 * (`settings.backoffStrategy`), so BullMQ's own retry machinery (delayed set, `attemptsMade`,
 * `failedReason`, stack traces) does the rest.
 * @throws InvalidJobOptionsError when the process options are out of range
 */
export async function startBullMqProcessor<N extends QueueName>(
  options: BullMqProcessorOptions<N>,
): Promise<Processor> {
  const { name, handler, connection, prefix } = options;
  const { concurrency, attempts, backoffMs } = resolveProcessOptions(options.process);
  const logger = options.logger.child({ queue: name });

  // Used to release a started job's debounce key, so that an enqueue arriving while the job runs
  // makes a new job (docs/decisions.md "Job queue debounce") instead of being deduplicated away.
  const keys = new Queue(name, { connection, prefix });
  const releaseDebounceKey = async (job: Job<QueuePayloads[N]>) => {
    const key = job.opts.deduplication?.id;
    if (key === undefined) return;
    if ((await keys.getDeduplicationJobId(key)) === job.id) await keys.removeDeduplicationKey(key);
  };

  const worker = new Worker<QueuePayloads[N]>(
    name,
    async (job: Job<QueuePayloads[N]>) => {
      await releaseDebounceKey(job);
      try {
        await handler(job.data, {
          id: job.id!,
          attempt: Math.max(job.attemptsStarted, job.attemptsMade + 1),
        });
      } catch (err) {
        throw toError(err);
      }
    },
    {
      connection,
      prefix,
      concurrency,
      maxStartedAttempts: attempts,
      settings: {
        backoffStrategy: (attemptsMade: number, type?: string) =>
          type === WARDEN_BACKOFF ? backoffDelayMs(backoffMs, attemptsMade) : -1,
      },
    },
  );
  worker.on('error', (err) => logger.error({ err }, 'worker error'));
  worker.on('failed', (job, err) => {
    if (!job) return;
    const fields = { jobId: job.id, attempt: job.attemptsMade, err };
    if (job.attemptsMade < attempts && job.finishedOn === undefined)
      logger.warn(fields, 'job attempt failed');
    else logger.error(fields, 'job failed');
  });
  await worker.waitUntilReady();

  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        await worker.close();
        await keys.close();
        await closeRedis(connection);
      })()),
  };
}
