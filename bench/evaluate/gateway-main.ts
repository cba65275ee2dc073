/**
 * Child-process entry of `bench:evaluate`: the real gateway (the same parts `start()` of
 * `@agent-warden/gateway` builds — Prisma, KafkaBus, PolicyStore, `createGatewayApp`) behind an
 * outer express app that adds one bench-only route, `POST /bench/bare` (`express.json()` and
 * `{ok:true}`), the baseline of the same server. Prints `{"ready":true,"url":…}` on stdout; stops
 * on SIGTERM.
 */
import express from 'express';
import { KafkaBus } from '@agent-warden/bus';
import { parseEnv } from '@agent-warden/config';
import { TOPICS } from '@agent-warden/contracts';
import { createPrisma } from '@agent-warden/db';
import { createGatewayApp, GatewayConfig, ingestLimits, PolicyStore } from '@agent-warden/gateway';
import { listen } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';

async function main(): Promise<void> {
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'bench-gateway', level: config.LOG_LEVEL });
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
  const gateway = createGatewayApp(
    {
      db,
      bus,
      policies,
      logger,
      limits: ingestLimits(config),
      defaultApprovalTimeoutSeconds: config.WARDEN_APPROVAL_TIMEOUT_SECONDS,
    },
    () => bus.isHealthy(),
  );
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post('/bench/bare', express.json(), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(gateway);
  const server = await listen(app, config.PORT);
  process.stdout.write(JSON.stringify({ ready: true, url: server.url }) + '\n');
  process.once('SIGTERM', () => {
    (async () => {
      await server.close();
      policies.stop();
      await bus.close();
      await db.$disconnect();
    })().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  process.stderr.write(`bench gateway failed to start: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
