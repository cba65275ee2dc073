import { QUEUES } from '@agent-warden/contracts';
import type { PrismaClient } from '@agent-warden/db';
import type { Narrator, SessionEvaluator } from '@agent-warden/intelligence';
import type { Logger } from '@agent-warden/observability';
import type { JobQueue, ProcessOptions, Processor } from '@agent-warden/queue';
import { analyseAndStore } from '../analyse-session';

/**
 * Registers the `session-ready` processor on `queue` (BullMQ in the stack, in-process in
 * standalone). Thin: hands each job to {@link analyseAndStore} and logs the outcome; a thrown
 * error is retried with the given `attempts` / `backoffMs` and, after the last one, the job is kept
 * as failed (listed by the queue's `failed()`, `GET /v1/intelligence/jobs/failed` in the api).
 */
export function processSessionReady(
  queue: JobQueue,
  deps: { db: PrismaClient; logger: Logger; narrator: Narrator | null; evaluator?: SessionEvaluator | null },
  options: ProcessOptions,
): Promise<Processor> {
  const logger = deps.logger.child({ component: 'intelligence' });
  return queue.process(
    QUEUES.sessionReady,
    async (payload, job) => {
      try {
        const out = await analyseAndStore({ ...deps, logger }, payload);
        logger.info({ jobId: job.id, attempt: job.attempt, ...payload, ...out }, 'session analysed');
      } catch (err) {
        const last = job.attempt >= (options.attempts ?? 1);
        logger[last ? 'error' : 'warn'](
          { err, jobId: job.id, attempt: job.attempt, ...payload },
          'session analysis failed',
        );
        throw err;
      }
    },
    options,
  );
}
