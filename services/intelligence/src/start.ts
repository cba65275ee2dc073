import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { QUEUES } from '@agent-warden/contracts';
import { startHealthServer, startMetricsServer, stopWithin } from '@agent-warden/http';
import {
  createNarrator,
  createSessionEvaluator,
  type EvaluatorConfig,
  type NarratorConfig,
} from '@agent-warden/intelligence';
import { createLogger, createMetrics, type Logger } from '@agent-warden/observability';
import { BullMqJobQueue, type JobQueue, type Processor } from '@agent-warden/queue';
import { WorkerEnv, type IntelligenceConfig } from './config';
import { processSessionReady } from './queues/session-ready.processor';
import { startWebhookWorker } from './webhooks/worker';

/**
 * Registers the intelligence worker on an existing queue (the stack's BullMQ queue, or the
 * standalone in-process one): the `session-ready` processor with the configured concurrency,
 * attempts and backoff, and the LLM narrator when `narrator` config enables it (`OPENAI_API_KEY` or
 * `OPENAI_BASE_URL` set), the model evaluator when `evaluator` is given (`WARDEN_LLM_EVALUATOR` on,
 * docs/intelligence.md "The model evaluator"), and the webhook worker that works off `webhook_deliveries`
 * (docs/operations.md#notifications). Returns one processor for both; close it before the queue.
 */
export async function startIntelligenceWorker(deps: {
  db: PrismaClient;
  queue: JobQueue;
  logger: Logger;
  /** The `WARDEN_WEBHOOK_*` / `WARDEN_PUBLIC_URL` fields may be left out (their defaults apply). */
  config: Pick<
    WorkerEnv,
    'WARDEN_INTELLIGENCE_CONCURRENCY' | 'WARDEN_INTELLIGENCE_ATTEMPTS' | 'WARDEN_INTELLIGENCE_BACKOFF_MS'
  > &
    Partial<WorkerEnv>;
  narrator?: NarratorConfig;
  /** The model evaluator's configuration (`evaluatorConfigFromEnv`); null or absent: off. */
  evaluator?: EvaluatorConfig | null;
}): Promise<Processor> {
  const narrator = deps.narrator ? createNarrator(deps.narrator, deps.logger) : null;
  const evaluator = deps.evaluator ? createSessionEvaluator(deps.evaluator, deps.logger) : null;
  deps.logger.info(
    {
      concurrency: deps.config.WARDEN_INTELLIGENCE_CONCURRENCY,
      narrative: narrator ? narrator.model : 'off',
      evaluator: evaluator ? evaluator.model : 'off',
    },
    'intelligence worker processing',
  );
  const sessions = await processSessionReady(
    deps.queue,
    { db: deps.db, logger: deps.logger, narrator, evaluator },
    {
      concurrency: deps.config.WARDEN_INTELLIGENCE_CONCURRENCY,
      attempts: deps.config.WARDEN_INTELLIGENCE_ATTEMPTS,
      backoffMs: deps.config.WARDEN_INTELLIGENCE_BACKOFF_MS,
    },
  );
  const c: WorkerEnv = { ...WorkerEnv.parse({}), ...deps.config };
  const webhooks = startWebhookWorker({
    db: deps.db,
    logger: deps.logger.child({ component: 'webhooks' }),
    options: {
      pollMs: c.WARDEN_WEBHOOK_POLL_MS,
      attempts: c.WARDEN_WEBHOOK_ATTEMPTS,
      backoffMs: c.WARDEN_WEBHOOK_BACKOFF_MS,
      backoffMaxMs: c.WARDEN_WEBHOOK_BACKOFF_MAX_MS,
      timeoutMs: c.WARDEN_WEBHOOK_TIMEOUT_MS,
      logDays: c.WARDEN_WEBHOOK_LOG_DAYS,
      publicUrl: c.WARDEN_PUBLIC_URL ?? null,
    },
  });
  return { close: () => Promise.all([sessions.close(), webhooks.close()]).then(() => undefined) };
}

/** A running intelligence worker. */
export interface RunningIntelligence {
  /** Health server URL, when `PORT` is not 0. */
  url?: string;
  /** Metrics server URL (`GET /metrics`), when `WARDEN_METRICS_PORT` is not 0. */
  metricsUrl?: string;
  stop(deadlineMs?: number): Promise<void>;
}

/**
 * Starts the intelligence worker (stack mode): a BullMQ worker on `REDIS_URL` that writes versioned
 * session intelligence to PostgreSQL, `/health` + `/ready` on `PORT`, and `GET /metrics` on
 * `WARDEN_METRICS_PORT` with the queue's depth read at scrape time (docs/operations.md "Metrics"). Shutdown: fail `/ready`,
 * stop taking jobs and wait for those running (within the deadline), close Redis and the database.
 */
export async function start(
  config: IntelligenceConfig,
  logger: Logger = createLogger({ name: 'intelligence', level: config.LOG_LEVEL }),
  narrator?: NarratorConfig,
  evaluator?: EvaluatorConfig | null,
): Promise<RunningIntelligence> {
  const db = createPrisma(config.DATABASE_URL);
  const queue = new BullMqJobQueue({
    redisUrl: config.REDIS_URL,
    prefix: config.WARDEN_QUEUE_PREFIX,
    logger: logger.child({ component: 'queue' }),
  });
  const health = await startHealthServer(config.PORT);
  const metrics = createMetrics({
    processMetrics: true,
    onCollectError: (source, err) => logger.warn({ err, source }, 'metrics reading failed'),
  });
  metrics.observeQueue(QUEUES.sessionReady, () => queue.counts(QUEUES.sessionReady));
  const metricsServer = await startMetricsServer(config.WARDEN_METRICS_PORT, metrics, logger);
  const processor = await startIntelligenceWorker({ db, queue, logger, config, narrator, evaluator });
  health.setReady(true);
  return {
    url: health.url,
    metricsUrl: metricsServer.url,
    stop: async (deadlineMs = 30_000) => {
      health.setReady(false);
      await stopWithin(deadlineMs, async () => {
        await processor.close();
        await queue.close();
        await db.$disconnect();
        await metricsServer.close();
        await health.close();
      });
      logger.info('intelligence worker stopped');
    },
  };
}
