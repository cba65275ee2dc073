import { parseEnv } from '@agent-warden/config';
import { createLogger } from '@agent-warden/observability';
import { StandaloneConfig } from './config';
import { start } from './start';

/** `npm start`: the whole service in one process, with embedded defaults. */
async function main(): Promise<void> {
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
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    s.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', msg: 'agent warden failed to start', err: String(err?.stack ?? err) }),
  );
  process.exit(1);
});
