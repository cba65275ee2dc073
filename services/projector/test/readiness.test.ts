import { newId, type AgentEvent } from '@agent-warden/contracts';
import { readinessKey, touchedSessions } from '../src/readiness';

const ev = (
  sessionId: string,
  type: AgentEvent['type'],
  data: object = {},
): { projectId: string; event: AgentEvent } => ({
  projectId: 'p1',
  event: {
    id: newId(),
    type,
    time: new Date().toISOString(),
    sessionId,
    agentId: 'a',
    agentVersionId: 'v',
    sequence: 1,
    data,
  } as AgentEvent,
});

describe('touchedSessions', () => {
  test('one entry per session with new rows, ended when the batch holds agent.session.ended', () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const events = [
      ev(a, 'agent.custom', { name: 'x' }),
      ev(b, 'agent.custom', { name: 'x' }),
      ev(a, 'agent.session.ended', { status: 'completed' }),
      ev(c, 'agent.custom', { name: 'x' }),
      ev(b, 'agent.custom', { name: 'y' }),
    ];
    // c's events were all re-deliveries (not in WriteResult.sessions): nothing to schedule.
    expect(touchedSessions(events, [a, b]).sort((x, y) => x.sessionId.localeCompare(y.sessionId))).toEqual(
      [
        { projectId: 'p1', sessionId: a, ended: true },
        { projectId: 'p1', sessionId: b, ended: false },
      ].sort((x, y) => x.sessionId.localeCompare(y.sessionId)),
    );
  });
  test('the debounce key is projectId:sessionId', () => {
    expect(readinessKey('p', 's')).toBe('p:s');
  });
});
