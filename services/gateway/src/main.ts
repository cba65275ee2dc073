import { parseEnv } from '@agent-warden/config';
import { runService } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { GatewayConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/gateway/src/main.ts`. Stops gracefully on SIGTERM / SIGINT. */
runService('gateway', async () => {
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
  const gw = await start(config, logger);
  return { logger, stop: () => gw.stop() };
});
