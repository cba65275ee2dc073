/**
 * Every job queue and its job payload in one place (docs/conventions.md#layout: name → payload map), so a producer
 * or a processor with the wrong payload fails to compile. Payloads are plain JSON: they cross Redis
 * (BullMQ) as JSON, so use strings for times and ids, never `Date`, `Map` or class instances.
 */
export const QUEUES = {
  /**
   * A session is ready for runtime intelligence (docs/architecture.md#runtime-intelligence). The projector
   * schedules one debounced job per session (debounce key = `projectId:sessionId`); the
   * intelligence worker computes a new `SessionIntelligence` version.
   */
  sessionReady: 'session-ready',
} as const;

/**
 * Debounce key of a session's `session-ready` job (`<projectId>:<sessionId>`): the projector
 * schedules with it, and a deletion drops the pending job by it.
 */
export function sessionReadyKey(projectId: string, sessionId: string): string {
  return `${projectId}:${sessionId}`;
}

export type QueueKey = keyof typeof QUEUES;
/** The name of a job queue, e.g. `'session-ready'`. */
export type QueueName = (typeof QUEUES)[QueueKey];

/** Why a session was found ready. */
export type SessionReadyReason =
  /** `agent.session.ended` arrived. */
  | 'ended'
  /** No event came for the quiet period after the session's last run completed. */
  | 'quiet'
  /** An event arrived after the session had already been analysed; the analysis is redone. */
  | 'late_event'
  /** Someone asked for a new analysis (API or dashboard). */
  | 'manual';

/** Payload type of each queue (the job's data). */
export interface QueuePayloads {
  /** Analyse one session. The worker reads the session's events from the database itself. */
  'session-ready': {
    /** Project that owns the session (every query is scoped to it). */
    projectId: string;
    /** The session's UUIDv7 id, as sent by the client. */
    sessionId: string;
    /** Why the session is ready; the last enqueue before the job runs wins. */
    reason: SessionReadyReason;
  };
}
