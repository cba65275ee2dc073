import { projectsWithRetention, runRetention, type PrismaClient } from '@agent-warden/db';
import type { Logger } from '@agent-warden/observability';

/** A running retention sweeper. */
export interface RetentionSweeper {
  /** One pass over every project with a retention window (also what the timer runs). */
  sweep(): Promise<void>;
  /** Stops the timer and waits for a pass in progress. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The periodic retention job (docs/decisions.md "Retention by whole sessions"): every
 * `intervalMs` (first pass after `firstDelayMs`), runs retention on each project that has a
 * window, one after the other. Several api replicas may run it: each project's run takes a lease
 * on the project row, so a project is swept by one of them at a time. A failing project is logged
 * (and recorded as its failed last run); the others go on. The timer is `unref()`ed.
 */
export function startRetentionSweeper(deps: {
  db: PrismaClient;
  logger: Logger;
  /** Time between passes, ms (`WARDEN_RETENTION_INTERVAL_MS`, default 1 h). */
  intervalMs: number;
  /** Delay of the first pass, ms (default 60 s: not in the start-up rush). */
  firstDelayMs?: number;
}): RetentionSweeper {
  const { db, logger } = deps;
  let running: Promise<void> | undefined;
  let stopped = false;
  const sweep = async (): Promise<void> => {
    for (const projectId of await projectsWithRetention(db)) {
      if (stopped) return;
      try {
        const out = await runRetention(db, projectId, { trigger: 'schedule' });
        if ('run' in out)
          logger[out.run.status === 'failed' ? 'error' : 'info'](
            {
              projectId,
              status: out.run.status,
              sessions: out.run.sessions,
              batches: out.run.batches,
              error: out.run.error,
            },
            'retention run',
          );
      } catch (err) {
        logger.error({ err, projectId }, 'retention run failed');
      }
    }
  };
  const tick = () => {
    if (stopped || running) return;
    running = sweep()
      .catch((err: unknown) => logger.error({ err }, 'retention sweep failed'))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, deps.firstDelayMs ?? 60_000);
  const timer = setInterval(tick, deps.intervalMs);
  first.unref();
  timer.unref();
  return {
    sweep: async () => {
      tick();
      await running;
    },
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
