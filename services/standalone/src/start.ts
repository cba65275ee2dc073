import path from 'node:path';
import express from 'express';
import {
  apiRoutes,
  keepEventPartitions,
  startRetentionSweeper,
  assertSecretsDirWritable,
  bootstrapProject,
  dashboardRouter,
  handOverFirstStartSecrets,
  initAdminOf,
  loadOrCreateSessionSecret,
} from '@agent-warden/api';
import { InMemoryBus } from '@agent-warden/bus';
import { QUEUES } from '@agent-warden/contracts';
import { InMemoryJobQueue, type JobQueue } from '@agent-warden/queue';
import { countPendingApprovals, createPrisma } from '@agent-warden/db';
import { EMBEDDED_POOL_MAX, startEmbeddedPostgres } from '@agent-warden/embedded-postgres';
import { migrate } from '@agent-warden/migrations';
import { gatewayRoutes, ingestLimits, jsonBody, PolicyStore } from '@agent-warden/gateway';
import {
  healthRouter,
  httpMetrics,
  listen,
  METRICS_PATH,
  metricsHandler,
  notFoundHandler,
  openApiRouter,
  problemHandler,
} from '@agent-warden/http';
import { createPriceTable } from '@agent-warden/contracts';
import { createLogger, createMetrics, type Logger } from '@agent-warden/observability';
import { startIntelligenceWorker } from '@agent-warden/intelligence-service';
import { evaluatorConfigFromEnv, narratorConfigFromEnv } from '@agent-warden/intelligence';
import { readinessAfterWrite, startProjection } from '@agent-warden/projector';
import type { StandaloneConfig } from './config';

/** A running standalone service. */
export interface RunningStandalone {
  url: string;
  port: number;
  projectId: string;
  /** Set only at the first start without `WARDEN_INIT_API_KEY`. */
  generatedApiKey?: string;
  /** Set only at the first start without `WARDEN_INIT_ADMIN_EMAIL` / `_PASSWORD`: the dashboard's first admin. */
  generatedAdmin?: { email: string; password: string };
  /** `<WARDEN_DATA_DIR>/first-start-secrets.env` (0600) when this start generated a secret. */
  secretsFile?: string;
  databaseUrl: string;
  /** The in-process job queue. */
  queue: JobQueue;
  stop(): Promise<void>;
}

/**
 * Starts gateway, projector and api in one process (docs/architecture.md#two-ways-to-run): PostgreSQL
 * embedded with PGlite behind pglite-socket on a private unix socket (or `DATABASE_URL`),
 * migrations applied, the in-process bus
 * instead of Kafka, one HTTP port. One metrics registry for every part, served once on `GET /metrics`
 * (no consumer lag: the in-process bus is write-through; docs/operations.md "Metrics"). Shutdown order: fail /ready, stop HTTP, stop consuming, close
 * the database, stop the embedded server.
 */
export async function start(
  config: StandaloneConfig,
  logger: Logger = createLogger({ name: 'warden', level: config.LOG_LEVEL }),
): Promise<RunningStandalone> {
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: path.join(config.WARDEN_DATA_DIR, 'pgdata'),
        logger: logger.child({ component: 'pglite' }),
      });
  const databaseUrl = config.DATABASE_URL ?? embedded!.url;
  try {
    const { applied } = await migrate({ databaseUrl, logger: logger.child({ component: 'migrate' }) });
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  try {
    await assertSecretsDirWritable(config.WARDEN_DATA_DIR);
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const db = createPrisma(databaseUrl, { poolMax: embedded ? EMBEDDED_POOL_MAX : 10 });
  const boot = await bootstrapProject(db, {
    initApiKey: config.WARDEN_INIT_API_KEY,
    initAdmin: initAdminOf(config),
    logger,
  });
  // Secrets go to a 0600 file in the data dir (and a TTY), never into a log line; written before
  // anything else can fail, since a restart would not generate them again.
  const secretsFile = await handOverFirstStartSecrets(
    config.WARDEN_DATA_DIR,
    { apiKey: boot.generatedApiKey, admin: boot.generatedAdmin },
    logger,
  );
  const sessionSecret = config.WARDEN_JWT_SECRET ?? (await loadOrCreateSessionSecret(config.WARDEN_DATA_DIR));
  const stopping = new AbortController();
  const metrics = createMetrics({
    processMetrics: true,
    onCollectError: (source, err) => logger.warn({ err, source }, 'metrics reading failed'),
  });

  const bus = new InMemoryBus(logger.child({ component: 'bus' }));
  // The in-process job queue (BullMQ's substitute); the intelligence worker registers its processors on it.
  const queue: JobQueue = new InMemoryJobQueue({ logger: logger.child({ component: 'queue' }) });
  metrics.observeQueue(QUEUES.sessionReady, () => queue.counts(QUEUES.sessionReady));
  metrics.observePendingApprovals(() => countPendingApprovals(db));
  const intelligence = await startIntelligenceWorker({
    db,
    queue,
    logger: logger.child({ component: 'intelligence' }),
    config,
    narrator: narratorConfigFromEnv(),
    evaluator: evaluatorConfigFromEnv(),
  });
  const projection = await startProjection({
    db,
    bus,
    logger: logger.child({ component: 'projector' }),
    groupId: 'projector',
    metrics,
    afterWrite: readinessAfterWrite({
      db,
      queue,
      logger: logger.child({ component: 'readiness' }),
      delays: { quietMs: config.WARDEN_SESSION_QUIET_MS, endedDelayMs: config.WARDEN_SESSION_ENDED_DELAY_MS },
    }),
    prices: createPriceTable(config.WARDEN_LLM_PRICES_FILE),
  });
  const policies = new PolicyStore(db, logger.child({ component: 'policies' }));
  await policies.start();

  let ready = true;
  const app = express();
  app.disable('x-powered-by');
  app.use(httpMetrics(metrics));
  app.get(METRICS_PATH, metricsHandler(metrics));
  app.use(healthRouter(() => ready && bus.isHealthy()));
  app.use(jsonBody(config.WARDEN_MAX_BODY_BYTES));
  app.use(openApiRouter());
  app.use(
    gatewayRoutes({
      db,
      bus,
      policies,
      logger,
      limits: ingestLimits(config),
      defaultApprovalTimeoutSeconds: config.WARDEN_APPROVAL_TIMEOUT_SECONDS,
      metrics,
    }),
  );
  app.use(
    apiRoutes({
      db,
      logger,
      queue,
      sessionSecret,
      cookieSecure: config.WARDEN_COOKIE_SECURE,
      signal: stopping.signal,
      metrics,
      // One process: a policy write wakes the one store directly (its poll stays the guarantee).
      policyChanges: { changed: () => void policies.wake() },
    }),
  );
  app.use(dashboardRouter({ dir: config.WARDEN_DASHBOARD_DIR }));
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  const server = await listen(app, config.PORT, config.HOST);
  // Event partitions and retention as in the stack's api (docs/operations.md#event-partitions): now, then hourly.
  await keepEventPartitions(db, logger.child({ component: 'partitions' }));
  const retention = startRetentionSweeper({
    db,
    logger: logger.child({ component: 'retention' }),
    intervalMs: 3_600_000,
  });
  logger.info(
    { url: server.url, dataDir: embedded ? config.WARDEN_DATA_DIR : undefined },
    'agent warden listening',
  );

  return {
    url: server.url,
    port: server.port,
    projectId: boot.projectId,
    generatedApiKey: boot.generatedApiKey,
    generatedAdmin: boot.generatedAdmin,
    secretsFile,
    databaseUrl,
    queue,
    stop: async () => {
      ready = false;
      stopping.abort(); // ends the approval streams
      await retention.stop();
      await server.close();
      policies.stop();
      await projection.stop();
      await bus.close();
      await intelligence.close();
      await queue.close();
      await db.$disconnect();
      await embedded?.stop();
      logger.info('agent warden stopped');
    },
  };
}
