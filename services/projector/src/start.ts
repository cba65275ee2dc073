import { KafkaBus, KafkaConsumerLag, type EventBus, type Subscription } from '@agent-warden/bus';
import { createPriceTable, TOPICS, type PriceTable } from '@agent-warden/contracts';
import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { startHealthServer, startMetricsServer, stopWithin } from '@agent-warden/http';
import { createLogger, createMetrics, type Logger, type WardenMetrics } from '@agent-warden/observability';
import { BullMqJobQueue, type JobQueue } from '@agent-warden/queue';
import type { ProjectorConfig } from './config';
import { createProjectionHandler, type AfterWrite } from './handler';
import { readinessAfterWrite } from './readiness';

/** Topics the projector consumes. */
export const PROJECTED_TOPICS = [TOPICS.agentEvents, TOPICS.guardrailEvaluations];

/** Subscribes the projection handler to the event and evaluation topics of `bus` (counting in `metrics` when given). */
export async function startProjection(deps: {
  db: PrismaClient;
  bus: EventBus;
  logger: Logger;
  groupId: string;
  afterWrite?: AfterWrite;
  /** Prices of LLM calls: the defaults merged with `WARDEN_LLM_PRICES_FILE` (docs/architecture.md#llm-calls). */
  prices?: PriceTable;
  metrics?: WardenMetrics;
}): Promise<Subscription> {
  const handler = createProjectionHandler(deps);
  return deps.bus.subscribe({
    groupId: deps.groupId,
    topics: PROJECTED_TOPICS,
    handler,
    fromBeginning: true,
  });
}

/** A running projector. */
export interface RunningProjector {
  /** Health server URL, when `PORT` is not 0. */
  url?: string;
  /** Metrics server URL (`GET /metrics`), when `WARDEN_METRICS_PORT` is not 0. */
  metricsUrl?: string;
  stop(deadlineMs?: number): Promise<void>;
}

/**
 * Starts a projector (stack mode): a Kafka consumer-group member (`KafkaBus.subscribe`) writing to PostgreSQL and, when
 * `REDIS_URL` is set, scheduling `session-ready` jobs in BullMQ after each durable batch. Serves
 * `GET /metrics` on `WARDEN_METRICS_PORT`, with its group's consumer lag read from the brokers at
 * scrape time (docs/operations.md "Metrics").
 */
export async function start(
  config: ProjectorConfig,
  logger: Logger = createLogger({ name: 'projector', level: config.LOG_LEVEL }),
): Promise<RunningProjector> {
  const db = createPrisma(config.DATABASE_URL);
  const bus = new KafkaBus({
    brokers: config.KAFKA_BROKERS,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    clientId: 'warden-projector',
    logger,
    partitionsConsumedConcurrently: config.WARDEN_PROJECTOR_CONCURRENCY,
  });
  await bus.ensureTopics([
    { topic: TOPICS.agentEvents, numPartitions: config.WARDEN_EVENT_PARTITIONS },
    { topic: TOPICS.agentEventsDeadLetter, numPartitions: 1 },
    { topic: TOPICS.guardrailEvaluations, numPartitions: config.WARDEN_EVENT_PARTITIONS },
  ]);
  const health = await startHealthServer(config.PORT);
  const metrics = createMetrics({
    processMetrics: true,
    onCollectError: (source, err) => logger.warn({ err, source }, 'metrics reading failed'),
  });
  const lag = new KafkaConsumerLag({
    brokers: config.KAFKA_BROKERS,
    clientId: 'warden-projector-lag',
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    groupId: config.WARDEN_PROJECTOR_GROUP,
    topics: PROJECTED_TOPICS,
  });
  metrics.observeConsumerLag(() => lag.read());
  const metricsServer = await startMetricsServer(config.WARDEN_METRICS_PORT, metrics, logger);
  const queue: JobQueue | undefined = config.REDIS_URL
    ? new BullMqJobQueue({
        redisUrl: config.REDIS_URL,
        prefix: config.WARDEN_QUEUE_PREFIX,
        logger: logger.child({ component: 'queue' }),
      })
    : undefined;
  if (!queue)
    logger.warn('REDIS_URL is not set: no session-ready jobs are scheduled (no runtime intelligence)');
  const afterWrite = queue
    ? readinessAfterWrite({
        db,
        queue,
        logger,
        delays: {
          quietMs: config.WARDEN_SESSION_QUIET_MS,
          endedDelayMs: config.WARDEN_SESSION_ENDED_DELAY_MS,
        },
      })
    : undefined;
  const prices = createPriceTable(config.WARDEN_LLM_PRICES_FILE);
  const sub = await startProjection({
    db,
    bus,
    logger,
    groupId: config.WARDEN_PROJECTOR_GROUP,
    afterWrite,
    prices,
    metrics,
  });
  health.setReady(true);
  logger.info(
    { groupId: config.WARDEN_PROJECTOR_GROUP, metricsUrl: metricsServer.url },
    'projector consuming',
  );
  return {
    url: health.url,
    metricsUrl: metricsServer.url,
    stop: async (deadlineMs = 15_000) => {
      health.setReady(false);
      await stopWithin(deadlineMs, async () => {
        await sub.stop();
        await bus.close();
        await queue?.close();
        await db.$disconnect();
        await lag.close();
        await metricsServer.close();
        await health.close();
      });
      logger.info('projector stopped');
    },
  };
}
