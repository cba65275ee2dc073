/**
 * Child-process entry of the benchmark's gateway: parses `GatewayConfig` from the environment,
 * calls `start()` of `@agent-warden/gateway` with two bench-only routes mounted first on the same
 * server, `POST /bench/floor` and `POST /bench/floor-produce` ({@link floorRoutes}: the parse-only
 * and the parse-and-produce floors of `POST /v1/events`; the latter publishes through a `KafkaBus`
 * of its own, configured like the gateway's), and prints one line `{"ready":true,"url":…}` on stdout. Stops gracefully on SIGTERM. Spawned by
 * {@link ./gateway-process.ts}; over the IPC channel it answers `profile-start` / `profile-stop`
 * (CPU profile summary of this process).
 */
import { KafkaBus } from '@agent-warden/bus';
import { parseEnv } from '@agent-warden/config';
import { GatewayConfig, start } from '@agent-warden/gateway';
import { createLogger } from '@agent-warden/observability';
import { floorRoutes } from './floor';
import { answerProfileRequests } from './profile';

async function main(): Promise<void> {
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'bench-gateway', level: config.LOG_LEVEL });
  const floorBus = new KafkaBus({
    brokers: config.KAFKA_BROKERS,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    clientId: 'bench-floor-produce',
    logger,
  });
  const gw = await start(config, logger, [floorRoutes(floorBus)]);
  process.stdout.write(JSON.stringify({ ready: true, url: gw.url }) + '\n');
  answerProfileRequests();
  process.once('SIGTERM', () => {
    Promise.all([gw.stop(), floorBus.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  process.stderr.write(`bench gateway failed to start: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
