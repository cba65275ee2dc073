import { parseEnv } from '@agent-warden/config';
import { createLogger } from '@agent-warden/observability';
import { ApiConfig } from './config';
import { start } from './start';

/** Entry point: `tsx services/api/src/main.ts`. */
async function main(): Promise<void> {
  const config = parseEnv(ApiConfig);
  const logger = createLogger({ name: 'api', level: config.LOG_LEVEL });
  const api = await start(config, logger);
  const shutdown = () =>
    void api.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', msg: 'api failed to start', err: String(err?.stack ?? err) }),
  );
  process.exit(1);
});
