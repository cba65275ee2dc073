import { parseEnv } from '@agent-warden/config';
import { createLogger } from '@agent-warden/observability';
import { ProjectorConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/projector/src/main.ts`. Stops gracefully on SIGTERM / SIGINT. */
async function main(): Promise<void> {
  const config = parseEnv(ProjectorConfig);
  const logger = createLogger({ name: 'projector', level: config.LOG_LEVEL });
  const p = await start(config, logger);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    p.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', msg: 'projector failed to start', err: String(err?.stack ?? err) }),
  );
  process.exit(1);
});
