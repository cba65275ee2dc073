import path from 'node:path';
import { KafkaBus } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import { countPendingApprovals, createPrisma } from '@agent-warden/db';
import { listen, openApiRouter } from '@agent-warden/http';
import { createLogger, createMetrics, type Logger } from '@agent-warden/observability';
import { BullMqJobQueue } from '@agent-warden/queue';
import { createApiApp } from './app';
import { bootstrapProject } from './bootstrap';
import { assertSecretsDirWritable, handOverFirstStartSecrets } from './first-start-secrets';
import { initAdminOf, type ApiConfig } from './config';
import { BusPolicyChangeNotifier } from './policy-changes';
import { keepEventPartitions, startRetentionSweeper } from './retention-sweeper';

/** Starts the api (stack mode). Returns its URL and a graceful stop. */
export async function start(
  config: ApiConfig,
  logger: Logger = createLogger({ name: 'api', level: config.LOG_LEVEL }),
): Promise<{ url: string; port: number; stop(): Promise<void> }> {
  const secretsDir = path.resolve(config.WARDEN_DATA_DIR ?? '.warden');
  await assertSecretsDirWritable(secretsDir);
  const db = createPrisma(config.DATABASE_URL);
  const boot = await bootstrapProject(db, {
    initApiKey: config.WARDEN_INIT_API_KEY,
    initAdmin: initAdminOf(config),
    logger,
  });
  // Secrets go to a 0600 file (and a TTY), never into a log line.
  await handOverFirstStartSecrets(
    secretsDir,
    { apiKey: boot.generatedApiKey, admin: boot.generatedAdmin },
    logger,
  );
  const stopping = new AbortController();
  const metrics = createMetrics({
    processMetrics: true,
    onCollectError: (source, err) => logger.warn({ err, source }, 'metrics reading failed'),
  });
  metrics.observePendingApprovals(() => countPendingApprovals(db));
  const queue = config.REDIS_URL
    ? new BullMqJobQueue({ redisUrl: config.REDIS_URL, prefix: config.WARDEN_QUEUE_PREFIX, logger })
    : undefined;
  const bus = config.KAFKA_BROKERS
    ? new KafkaBus({
        brokers: config.KAFKA_BROKERS,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        clientId: 'warden-api',
        logger,
      })
    : undefined;
  // The hints are best effort (the gateways' poll is the guarantee): the api does not wait for
  // Kafka to start, and Kafka down is logged, not fatal.
  void bus
    ?.ensureTopics([{ topic: TOPICS.policyChanges, numPartitions: 1 }])
    .catch((err: unknown) => logger.warn({ err }, 'cannot create the policy-changes topic; hints may fail'));
  let ready = true;
  const app = createApiApp(
    {
      db,
      logger,
      queue,
      policyChanges: bus && new BusPolicyChangeNotifier(bus, logger.child({ component: 'policy-changes' })),
      dashboardDir: config.WARDEN_DASHBOARD_DIR,
      sessionSecret: config.WARDEN_JWT_SECRET,
      cookieSecure: config.WARDEN_COOKIE_SECURE,
      signal: stopping.signal,
      metrics,
    },
    () => ready,
    [openApiRouter()],
  );
  const server = await listen(app, config.PORT);
  // This week's and the next weeks' event partitions (again on every retention pass).
  await keepEventPartitions(db, logger.child({ component: 'partitions' }));
  const retentionIntervalMs = config.WARDEN_RETENTION_INTERVAL_MS ?? 3_600_000;
  const retention =
    retentionIntervalMs > 0
      ? startRetentionSweeper({
          db,
          logger: logger.child({ component: 'retention' }),
          intervalMs: retentionIntervalMs,
        })
      : undefined;
  logger.info({ port: server.port }, 'api listening');
  return {
    url: server.url,
    port: server.port,
    stop: async () => {
      ready = false;
      stopping.abort(); // ends the approval streams, so close() does not wait on them
      await retention?.stop();
      await server.close();
      await queue?.close();
      await bus?.close();
      await db.$disconnect();
    },
  };
}
