import type { Router } from 'express';
import { KafkaBus, KafkaPublisherThread } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import { createPrisma } from '@agent-warden/db';
import { listen } from '@agent-warden/http';
import { createLogger, createMetrics, type Logger } from '@agent-warden/observability';
import { createGatewayApp } from './app';
import { ingestLimits, RECORDER_DEFAULTS, type GatewayStartConfig } from './config';
import { disableAllocationSitePretenuring } from './gc-tuning';
import { EvaluationRecorder } from './guard/evaluation-recorder';
import { followPolicyChanges } from './guard/policy-hints';
import { PolicyStore } from './guard/policy-store';

/** A running gateway. */
export interface RunningGateway {
  url: string;
  port: number;
  /**
   * Graceful stop within `deadlineMs` (ms, default 10 000): fail /ready, stop HTTP, publish the
   * buffered evaluation records (then end their publisher thread), close Kafka, close the DB.
   */
  stop(deadlineMs?: number): Promise<void>;
}

/**
 * Starts a gateway (stack mode): PostgreSQL via Prisma, Kafka via `@agent-warden/bus` (`@platformatic/kafka`), policies in memory.
 * Creates the topics when missing. Every dependency is built here, explicitly (docs/conventions.md#start-up-and-shutdown).
 * Turns off V8's allocation-site pretenuring for the whole process ({@link disableAllocationSitePretenuring}).
 */
export async function start(
  config: GatewayStartConfig,
  logger: Logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL }),
  extraRoutes: Router[] = [],
): Promise<RunningGateway> {
  // Dead requests held by pretenured objects made the guard check's scavenges long (src/gc-tuning.ts).
  disableAllocationSitePretenuring();
  const db = createPrisma(config.DATABASE_URL);
  const metrics = createMetrics({ processMetrics: true });
  const bus = new KafkaBus({
    brokers: config.KAFKA_BROKERS,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    clientId: 'warden-gateway',
    logger,
  });
  await bus.ensureTopics([
    { topic: TOPICS.agentEvents, numPartitions: config.WARDEN_EVENT_PARTITIONS },
    { topic: TOPICS.agentEventsDeadLetter, numPartitions: 1 },
    { topic: TOPICS.guardrailEvaluations, numPartitions: config.WARDEN_EVENT_PARTITIONS },
    { topic: TOPICS.policyChanges, numPartitions: 1 },
  ]);
  const policies = new PolicyStore(
    db,
    logger.child({ component: 'policies' }),
    config.WARDEN_POLICY_REFRESH_MS,
  );
  await policies.start();
  // The api's hints make a change apply at once; the store's poll stays the guarantee.
  const policyHints =
    config.WARDEN_POLICY_HINTS !== false
      ? followPolicyChanges(bus, policies, logger.child({ component: 'policy-hints' }))
      : undefined;
  // Evaluation records go to Kafka from a worker thread (@platformatic/kafka): off the request thread.
  const evaluationPublisher = new KafkaPublisherThread(
    {
      brokers: config.KAFKA_BROKERS,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: 'warden-gateway-evaluations',
      logName: 'gateway',
      logLevel: config.LOG_LEVEL,
    },
    logger.child({ component: 'evaluation-publisher' }),
  );
  const evaluations = new EvaluationRecorder(evaluationPublisher, {
    capacity: config.WARDEN_EVALUATION_BUFFER_MAX ?? RECORDER_DEFAULTS.WARDEN_EVALUATION_BUFFER_MAX,
    capacityBytes:
      config.WARDEN_EVALUATION_BUFFER_MAX_BYTES ?? RECORDER_DEFAULTS.WARDEN_EVALUATION_BUFFER_MAX_BYTES,
    flushIntervalMs: config.WARDEN_EVALUATION_FLUSH_MS ?? RECORDER_DEFAULTS.WARDEN_EVALUATION_FLUSH_MS,
    maxBatch: config.WARDEN_EVALUATION_BATCH_MAX ?? RECORDER_DEFAULTS.WARDEN_EVALUATION_BATCH_MAX,
    logger: logger.child({ component: 'evaluation-recorder' }),
  });
  metrics.observeEvaluationRecorder(async () => evaluations.stats());
  let ready = true;
  const app = createGatewayApp(
    {
      db,
      bus,
      policies,
      logger,
      limits: ingestLimits(config),
      defaultApprovalTimeoutSeconds: config.WARDEN_APPROVAL_TIMEOUT_SECONDS,
      evaluations,
      metrics,
    },
    () => ready && bus.isHealthy() && evaluations.hasRoom(),
    extraRoutes,
  );
  const server = await listen(app, config.PORT);
  logger.info({ port: server.port }, 'gateway listening');
  return {
    url: server.url,
    port: server.port,
    stop: async (deadlineMs = 10_000) => {
      ready = false;
      const until = Date.now() + deadlineMs;
      const deadline = new Promise<void>((r) => setTimeout(r, deadlineMs).unref());
      await Promise.race([
        (async () => {
          await server.close();
          // Answers already sent name their evaluations: publish those still buffered (logs the counters).
          await evaluations.close(Math.max(0, until - Date.now() - 500));
          await evaluationPublisher.close();
          await policyHints?.stop();
          policies.stop();
          await bus.close();
          await db.$disconnect();
        })(),
        deadline,
      ]);
      logger.info('gateway stopped');
    },
  };
}
