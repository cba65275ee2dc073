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
  // Printed once, on purpose, in plain text: the secrets are not stored and cannot be shown again.
  if (s.generatedApiKey)
    process.stdout.write(
      `\n  Agent Warden is running at ${s.url}\n  Your API key (shown only once): ${s.generatedApiKey}\n` +
        `  Try: curl -H "Authorization: Bearer ${s.generatedApiKey}" ${s.url}/v1/agents\n\n`,
    );
  if (s.generatedAdmin)
    process.stdout.write(
      `  Dashboard: ${s.url} — sign in as ${s.generatedAdmin.email} with the password (shown only once): ` +
        `${s.generatedAdmin.password}\n\n`,
    );
  logger.info({ url: s.url, projectId: s.projectId }, 'agent warden ready');
  return { logger, stop: () => s.stop() };
});
