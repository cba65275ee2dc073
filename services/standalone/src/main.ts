import { parseEnv } from '@agent-warden/config';
import { runService } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { StandaloneConfig } from './config';
import { start } from './start';

/** `npm start`: the whole service in one process, with embedded defaults. */
runService('warden', async () => {
  const config = parseEnv(StandaloneConfig);
  const logger = createLogger({ name: 'warden', level: config.LOG_LEVEL });
  // A first start's secrets were written to <data dir>/first-start-secrets.env (0600) and, on a
  // TTY, printed there by start(); no log line holds them.
  const s = await start(config, logger);
  logger.info({ url: s.url, projectId: s.projectId }, 'agent warden ready');
  return { logger, stop: () => s.stop() };
});
