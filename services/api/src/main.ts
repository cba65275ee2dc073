import { parseEnv } from '@agent-warden/config';
import { runService } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { ApiConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/api/src/main.ts`. Stops gracefully on SIGTERM / SIGINT. */
runService('api', async () => {
  const config = parseEnv(ApiConfig);
  const logger = createLogger({ name: 'api', level: config.LOG_LEVEL });
  const api = await start(config, logger);
  return { logger, stop: () => api.stop() };
});
