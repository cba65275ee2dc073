import { parseEnv } from '@agent-warden/config';
import { runService } from '@agent-warden/http';
import { evaluatorConfigFromEnv, narratorConfigFromEnv } from '@agent-warden/intelligence';
import { createLogger } from '@agent-warden/observability';
import { IntelligenceConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/intelligence/src/main.ts`. Stops gracefully on SIGTERM / SIGINT. */
runService('intelligence', async () => {
  const config = parseEnv(IntelligenceConfig);
  const narrator = narratorConfigFromEnv();
  const evaluator = evaluatorConfigFromEnv();
  const logger = createLogger({ name: 'intelligence', level: config.LOG_LEVEL });
  const w = await start(config, logger, narrator, evaluator);
  return { logger, stop: () => w.stop() };
});
