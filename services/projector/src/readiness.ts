import { QUEUES, type SessionReadyReason } from '@agent-warden/contracts';
import { markIntelligenceStale, type PrismaClient, type ProjectedEvent } from '@agent-warden/db';
import type { Logger } from '@agent-warden/observability';
import type { JobQueue } from '@agent-warden/queue';
import type { AfterWrite } from './handler';

/** Delays of the readiness jobs (docs/architecture.md#runtime-intelligence), ms. */
export interface ReadinessDelays {
  /** After the batch that stored a session's `agent.session.ended` (a short debounce). */
  endedDelayMs: number;
  /** After any other batch: the session is ready when nothing else arrived for this long. */
  quietMs: number;
}

/** One session that received new events in a durable batch. */
export interface TouchedSession {
  projectId: string;
  sessionId: string;
  /** The batch held the session's `agent.session.ended`. */
  ended: boolean;
}

/**
 * Sessions among `sessions` (those with new rows) and whether the batch ended them. Session ids
 * are per project (docs/decisions.md "Ids are owned by a project"): both key on project and id.
 */
export function touchedSessions(
  events: readonly ProjectedEvent[],
  sessions: readonly { projectId: string; sessionId: string }[],
): TouchedSession[] {
  const wanted = new Set(sessions.map((s) => readinessKey(s.projectId, s.sessionId)));
  const out = new Map<string, TouchedSession>();
  for (const { projectId, event } of events) {
    const key = readinessKey(projectId, event.sessionId);
    if (!wanted.has(key)) continue;
    let s = out.get(key);
    if (!s) {
      s = { projectId, sessionId: event.sessionId, ended: false };
      out.set(key, s);
    }
    if (event.type === 'agent.session.ended') s.ended = true;
  }
  return [...out.values()];
}

/** The debounce key of a session's readiness job: one pending job per session. */
export function readinessKey(projectId: string, sessionId: string): string {
  return `${projectId}:${sessionId}`;
}

/**
 * Schedules readiness after a durable batch: for each touched session, marks its intelligence
 * `stale` when it has some (one UPDATE per project) and enqueues one debounced `session-ready` job
 * (debounce key `projectId:sessionId`, so a burst of events makes one job and each batch pushes it
 * back). Reason: `late_event` when the session already had intelligence, else `ended` when the
 * batch ended it, else `quiet`. Delay: `endedDelayMs` when the session has ended (in this batch or,
 * for a late event, before), else `quietMs`.
 * The worker re-checks readiness when the job runs. Errors propagate (the batch is retried; the
 * write itself is idempotent).
 */
export async function scheduleReadiness(
  deps: { db: PrismaClient; queue: JobQueue; logger: Logger; delays: ReadinessDelays },
  sessions: readonly TouchedSession[],
): Promise<void> {
  if (sessions.length === 0) return;
  const byProject = new Map<string, string[]>();
  for (const s of sessions) byProject.set(s.projectId, [...(byProject.get(s.projectId) ?? []), s.sessionId]);
  const analysed = new Map<string, { ended: boolean }>();
  for (const [projectId, ids] of byProject)
    for (const [id, info] of await markIntelligenceStale(deps.db, projectId, ids))
      analysed.set(readinessKey(projectId, id), info);

  await Promise.all(
    sessions.map((s) => {
      const late = analysed.get(readinessKey(s.projectId, s.sessionId));
      const reason: SessionReadyReason = late ? 'late_event' : s.ended ? 'ended' : 'quiet';
      const ended = s.ended || late?.ended === true;
      return deps.queue.enqueue(
        QUEUES.sessionReady,
        { projectId: s.projectId, sessionId: s.sessionId, reason },
        {
          debounceKey: readinessKey(s.projectId, s.sessionId),
          delayMs: ended ? deps.delays.endedDelayMs : deps.delays.quietMs,
        },
      );
    }),
  );
  deps.logger.debug({ sessions: sessions.length, lateEvents: analysed.size }, 'session readiness scheduled');
}

/**
 * The projector's `afterWrite` hook that schedules readiness ({@link scheduleReadiness}) for the
 * sessions with new events and those with new guardrail evaluations (the analysis reads both).
 */
export function readinessAfterWrite(deps: {
  db: PrismaClient;
  queue: JobQueue;
  logger: Logger;
  delays: ReadinessDelays;
}): AfterWrite {
  return (result, events) => {
    const sessions = touchedSessions(events, result.sessions);
    const seen = new Set(sessions.map((s) => readinessKey(s.projectId, s.sessionId)));
    for (const e of result.evaluatedSessions)
      if (!seen.has(readinessKey(e.projectId, e.sessionId))) {
        seen.add(readinessKey(e.projectId, e.sessionId));
        sessions.push({ projectId: e.projectId, sessionId: e.sessionId, ended: false });
      }
    return scheduleReadiness(deps, sessions);
  };
}
