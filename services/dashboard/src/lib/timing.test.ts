import type { WardenEvent } from '../api/types';
import { timingNote } from './timing';

const started = (attributes?: Record<string, unknown>): WardenEvent => ({
  id: 'e1',
  type: 'agent.session.started',
  time: '2024-01-01T00:00:00.000Z',
  sessionId: 's',
  runId: null,
  parentId: null,
  agentId: 'a',
  agentVersionId: 'v',
  sequence: 1,
  data: attributes ? { attributes } : {},
  receivedAt: '2024-01-01T00:00:00.000Z',
});

describe('timingNote', () => {
  test('says where a replayed session’s times come from', () => {
    expect(timingNote([started({ timing: 'replay' })])?.text).toBe('replay timing');
    expect(timingNote([started({ timing: 'source-total-only' })])?.text).toBe('total duration from the log');
    expect(timingNote([started({ timing: 'source' })])?.text).toBe('timing from the log');
  });

  test('says nothing for a live session, an unknown value or no started event', () => {
    expect(timingNote([started()])).toBeNull();
    expect(timingNote([started({ timing: 'sundial' })])).toBeNull();
    expect(timingNote([])).toBeNull();
  });
});
