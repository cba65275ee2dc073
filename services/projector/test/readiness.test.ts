import { newId, type AgentEvent } from '@agent-warden/contracts';
import { readinessKey, touchedSessions } from '../src/readiness';

const ev = (
  sessionId: string,
  type: AgentEvent['type'],
  data: object = {},
  projectId = 'p1',
): { projectId: string; event: AgentEvent } => ({
  projectId,
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
    const touched = [a, b].map((sessionId) => ({ projectId: 'p1', sessionId }));
    expect(touchedSessions(events, touched).sort((x, y) => x.sessionId.localeCompare(y.sessionId))).toEqual(
      [
        { projectId: 'p1', sessionId: a, ended: true },
        { projectId: 'p1', sessionId: b, ended: false },
      ].sort((x, y) => x.sessionId.localeCompare(y.sessionId)),
    );
  });
  test('a session id is per project: another project naming the same id is another session', () => {
    const s = newId();
    const events = [
      ev(s, 'agent.custom', { name: 'x' }, 'p1'),
      ev(s, 'agent.session.ended', { status: 'failed' }, 'p2'),
    ];
    // Only p2's event was new: p1's session with the same id is not touched.
    expect(touchedSessions(events, [{ projectId: 'p2', sessionId: s }])).toEqual([
      { projectId: 'p2', sessionId: s, ended: true },
    ]);
  });
  test('the debounce key is projectId:sessionId', () => {
    expect(readinessKey('p', 's')).toBe('p:s');
  });
});
