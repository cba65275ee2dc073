import { parseEnv } from '@agent-warden/config';
import { runService } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { ProjectorConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/projector/src/main.ts`. Stops gracefully on SIGTERM / SIGINT. */
runService('projector', async () => {
  const config = parseEnv(ProjectorConfig);
  const logger = createLogger({ name: 'projector', level: config.LOG_LEVEL });
  const p = await start(config, logger);
  return { logger, stop: () => p.stop() };
});
