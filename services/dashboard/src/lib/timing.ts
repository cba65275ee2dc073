import type { WardenEvent } from '../api/types';

/**
 * What the session page says about its times, from the `timing` attribute a replay puts on
 * `agent.session.started` (scripts/replay/README.md "Timing"): `source` the logged run's own
 * times, `source-total-only` its total shared out over the steps, `replay` the replay's clock. A
 * live session (no attribute, or an unknown value) needs no line: `null`.
 */
export function timingNote(events: readonly WardenEvent[]): { text: string; title: string } | null {
  const started = events.find((e) => e.type === 'agent.session.started');
  const attributes = (started?.data as { attributes?: { timing?: unknown } } | undefined)?.attributes;
  switch (attributes?.timing) {
    case 'source':
      return { text: 'timing from the log', title: 'Replayed with the logged run’s own step times.' };
    case 'source-total-only':
      return {
        text: 'total duration from the log',
        title: 'Replayed with the logged run’s total duration; its steps are spread evenly over it.',
      };
    case 'replay':
      return {
        text: 'replay timing',
        title: 'The log has no timing: times and durations are the replay’s, not the agent’s.',
      };
    default:
      return null;
  }
}
