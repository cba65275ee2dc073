import type { SessionReadyReason } from '@agent-warden/contracts';
import type { SessionInput } from '@agent-warden/intelligence';

/** Why a session is (not) ready when its job runs. */
export type ReadinessVerdict =
  | { ready: true; because: 'ended' | 'quiet' | 'manual' }
  | { ready: false; because: 'run_still_running' | 'no_events' };

/**
 * The readiness rule, checked when a `session-ready` job runs (docs/architecture.md#runtime-intelligence):
 * a session is ready when it has ended (`agent.session.ended` stored), or when no run is still
 * running — the job itself only runs once the quiet period passed without new events, because every
 * projected batch pushes the debounced job back. A `manual` request is always served (when the
 * session has events). Not ready: nothing is written; the next event schedules a new job.
 */
export function checkReadiness(input: SessionInput, reason: SessionReadyReason): ReadinessVerdict {
  if (input.events.length === 0) return { ready: false, because: 'no_events' };
  if (reason === 'manual') return { ready: true, because: 'manual' };
  if (input.session.endedAt !== null) return { ready: true, because: 'ended' };
  if (input.runs.some((r) => r.status === 'running')) return { ready: false, because: 'run_still_running' };
  return { ready: true, because: 'quiet' };
}
