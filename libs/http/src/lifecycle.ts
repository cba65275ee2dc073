import type { Logger } from '@agent-warden/observability';

/**
 * Runs a service's `main`: starts it, then stops it gracefully on SIGTERM / SIGINT (exit 0, or 1
 * when stopping fails). A start failure is logged as one fatal JSON line and exits 1.
 * @param name service name for the fatal line
 * @param start builds and starts the service; returns its `stop()`
 */
export function runService(
  name: string,
  start: () => Promise<{ logger: Logger; stop(): Promise<void> }>,
): void {
  start().then(
    ({ logger, stop }) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        stop().then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    },
    (err: unknown) => {
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      console.error(
        JSON.stringify({ level: 'fatal', service: name, msg: `${name} failed to start`, err: detail }),
      );
      process.exit(1);
    },
  );
}
