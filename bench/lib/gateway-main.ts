/**
 * Child-process entry of the benchmark's gateway: parses `GatewayConfig` from the environment,
 * calls `start()` of `@agent-warden/gateway` with one bench-only route mounted first on the same
 * server, `POST /bench/floor` ({@link floorRoute}: the parse-only floor of `POST /v1/events`), and
 * prints one line `{"ready":true,"url":…}` on stdout. Stops gracefully on SIGTERM. Spawned by
 * {@link ./gateway-process.ts}; over the IPC channel it answers `profile-start` / `profile-stop`
 * (CPU profile summary of this process).
 */
import { parseEnv } from '@agent-warden/config';
import { GatewayConfig, start } from '@agent-warden/gateway';
import { createLogger } from '@agent-warden/observability';
import { floorRoute } from './floor';
import { answerProfileRequests } from './profile';

async function main(): Promise<void> {
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'bench-gateway', level: config.LOG_LEVEL });
  const gw = await start(config, logger, [floorRoute()]);
  process.stdout.write(JSON.stringify({ ready: true, url: gw.url }) + '\n');
  answerProfileRequests();
  process.once('SIGTERM', () => {
    gw.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  process.stderr.write(`bench gateway failed to start: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
