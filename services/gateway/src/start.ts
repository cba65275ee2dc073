import type { Router } from 'express';
import { KafkaBus } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import { createPrisma } from '@agent-warden/db';
import { listen } from '@agent-warden/http';
import { createLogger, type Logger } from '@agent-warden/observability';
import { createGatewayApp } from './app';
import { ingestLimits, type GatewayConfig } from './config';
import { PolicyStore } from './guard/policy-store';

/** A running gateway. */
export interface RunningGateway {
  url: string;
  port: number;
  /** Graceful stop within `deadlineMs`: fail /ready, stop HTTP, close Kafka, close the DB. */
  stop(deadlineMs?: number): Promise<void>;
}

/**
 * Starts a gateway (stack mode): PostgreSQL via Prisma, Kafka via kafkajs, policies in memory.
 * Creates the topics when missing. Every dependency is built here, explicitly (STYLE.md).
 */
export async function start(
  config: GatewayConfig,
  logger: Logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL }),
  extraRoutes: Router[] = [],
): Promise<RunningGateway> {
  const db = createPrisma(config.DATABASE_URL);
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
  ]);
  const policies = new PolicyStore(
    db,
    logger.child({ component: 'policies' }),
    config.WARDEN_POLICY_REFRESH_MS,
  );
  await policies.start();
  let ready = true;
  const app = createGatewayApp(
    {
      db,
      bus,
      policies,
      logger,
      limits: ingestLimits(config),
      defaultApprovalTimeoutSeconds: config.WARDEN_APPROVAL_TIMEOUT_SECONDS,
    },
    () => ready && bus.isHealthy(),
    extraRoutes,
  );
  const server = await listen(app, config.PORT);
  logger.info({ port: server.port }, 'gateway listening');
  return {
    url: server.url,
    port: server.port,
    stop: async (deadlineMs = 10_000) => {
      ready = false;
      const deadline = new Promise<void>((r) => setTimeout(r, deadlineMs).unref());
      await Promise.race([
        (async () => {
          await server.close();
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
