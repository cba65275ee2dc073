import { parseEnv } from '@agent-warden/config';
import { createLogger } from '@agent-warden/observability';
import { GatewayConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/gateway/src/main.ts`. Stops gracefully on SIGTERM / SIGINT. */
async function main(): Promise<void> {
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
  const gw = await start(config, logger);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    gw.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', msg: 'gateway failed to start', err: String(err?.stack ?? err) }),
  );
  process.exit(1);
});
