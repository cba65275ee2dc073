import { parseEnv } from '@agent-warden/config';
import { runService } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { StandaloneConfig } from './config';
import { start } from './start';

/** `npm start`: the whole service in one process, with embedded defaults. */
runService('warden', async () => {
  const config = parseEnv(StandaloneConfig);
  const logger = createLogger({ name: 'warden', level: config.LOG_LEVEL });
  const s = await start(config, logger);
  if (s.generatedApiKey) {
    // Printed once, on purpose, in plain text: the secret is not stored and cannot be shown again.
    process.stdout.write(
      `\n  Agent Warden is running at ${s.url}\n  Your API key (shown only once): ${s.generatedApiKey}\n` +
        `  Try: curl -H "Authorization: Bearer ${s.generatedApiKey}" ${s.url}/v1/agents\n\n`,
    );
  }
  logger.info({ url: s.url, projectId: s.projectId }, 'agent warden ready');
  return { logger, stop: () => s.stop() };
});
