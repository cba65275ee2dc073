import {
  ensureEventPartitions,
  projectsWithRetention,
  runRetention,
  type PrismaClient,
} from '@agent-warden/db';
import type { Logger } from '@agent-warden/observability';

/** A running retention sweeper. */
export interface RetentionSweeper {
  /** One pass over every project with a retention window (also what the timer runs). */
  sweep(): Promise<void>;
  /** Stops the timer and waits for a pass in progress. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Creates the events table's partitions of this week and the next ones where missing
 * ({@link ensureEventPartitions}; docs/operations.md#event-partitions), logging what it did. Never
 * throws: a failure (a lock not obtained within 10 s, the database away) is logged and the next pass
 * tries again; meanwhile rows of a missing week go to the DEFAULT partition, so nothing is refused.
 */
export async function keepEventPartitions(db: PrismaClient, logger: Logger): Promise<void> {
  try {
    const { created, moved } = await ensureEventPartitions(db);
    if (created.length > 0) logger.info({ created, moved }, 'event partitions created');
  } catch (err) {
    logger.warn({ err }, 'cannot create event partitions; rows go to the default partition meanwhile');
  }
}

/**
 * The periodic retention job (docs/decisions.md "Retention by whole sessions"): every
 * `intervalMs` (first pass after `firstDelayMs`), runs retention on each project that has a
 * window, one after the other, after creating the events partitions ahead ({@link keepEventPartitions}). Several api replicas may run it: each project's run takes a lease
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
    await keepEventPartitions(db, logger);
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
              partitionsDropped: out.run.partitionsDropped,
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
