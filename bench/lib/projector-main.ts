/**
 * Child-process entry of the prototype projector: the real projection (`startProjection` from
 * `@agent-warden/projector`, a `KafkaBus`, `ProjectorConfig` from the environment) writing through
 * {@link withRawEventInsert} — the only difference from `services/projector/src/main.ts`.
 * Stops gracefully on SIGTERM.
 */
import { KafkaBus } from '@agent-warden/bus';
import { parseEnv } from '@agent-warden/config';
import { createPrisma } from '@agent-warden/db';
import { createLogger } from '@agent-warden/observability';
import { ProjectorConfig, startProjection } from '@agent-warden/projector';
import { withRawEventInsert } from './raw-event-insert';

async function main(): Promise<void> {
  const config = parseEnv(ProjectorConfig);
  const logger = createLogger({ name: 'bench-projector', level: config.LOG_LEVEL });
  const db = createPrisma(config.DATABASE_URL);
  const bus = new KafkaBus({
    brokers: config.KAFKA_BROKERS,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    clientId: 'bench-projector',
    logger,
    partitionsConsumedConcurrently: config.WARDEN_PROJECTOR_CONCURRENCY,
  });
  const sub = await startProjection({
    db: withRawEventInsert(db),
    bus,
    logger,
    groupId: config.WARDEN_PROJECTOR_GROUP,
  });
  process.once('SIGTERM', () => {
    void (async () => {
      await sub.stop();
      await bus.close();
      await db.$disconnect();
      process.exit(0);
    })();
  });
}

main().catch((err) => {
  process.stderr.write(`bench projector failed to start: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
