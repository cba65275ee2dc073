import { AgentEvent, newId, ScoreRequest, scoreDataTypeOf } from '../src';

const envelope = () => ({
  id: newId(),
  type: 'agent.score.recorded' as const,
  time: '2026-11-24T14:00:00.000Z',
  sessionId: newId(),
  agentId: newId(),
  agentVersionId: newId(),
  sequence: 1,
});

const paths = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  r.error?.issues.map((i) => i.path.join('.')) ?? [];

describe('scores (docs/architecture.md#scores)', () => {
  test('a score event of each data type is valid, on a session or a run', () => {
    for (const [value, dataType] of [
      [0.5, 'numeric'],
      [true, 'boolean'],
      ['good', 'categorical'],
    ] as const) {
      const e = { ...envelope(), data: { name: 'outcome', value, dataType, source: 'rule' } };
      expect(AgentEvent.safeParse(e).success).toBe(true);
      expect(AgentEvent.safeParse({ ...e, runId: newId() }).success).toBe(true);
    }
  });

  test('a value that is not of its dataType is refused at data.value', () => {
    const r = AgentEvent.safeParse({
      ...envelope(),
      data: { name: 'outcome', value: 'yes', dataType: 'boolean', source: 'rule' },
    });
    expect(r.success).toBe(false);
    expect(paths(r)).toEqual(['data.value']);
  });

  test('name 1–200 characters, categorical value ≤ 200, known source, finite number', () => {
    const bad = [
      { name: '', value: 1, dataType: 'numeric', source: 'rule' },
      { name: 'x'.repeat(201), value: 1, dataType: 'numeric', source: 'rule' },
      { name: 'a', value: 'x'.repeat(201), dataType: 'categorical', source: 'rule' },
      { name: 'a', value: 1, dataType: 'numeric', source: 'model' },
      { name: 'a', value: Infinity, dataType: 'numeric', source: 'rule' },
      { name: 'a', value: 1, dataType: 'numeric', source: 'rule', scoreId: 'not-a-uuid' },
    ];
    for (const data of bad) expect(AgentEvent.safeParse({ ...envelope(), data }).success).toBe(false);
  });

  test('the API request defaults source to human and checks the value like the event', () => {
    const ok = ScoreRequest.parse({ name: 'helpful', value: false, dataType: 'boolean' });
    expect(ok.source).toBe('human');
    const r = ScoreRequest.safeParse({ name: 'helpful', value: 3, dataType: 'categorical', runId: 'x' });
    expect(paths(r).sort()).toEqual(['runId', 'value']);
  });

  test('scoreDataTypeOf infers the data type from the value', () => {
    expect([1, false, 'a'].map(scoreDataTypeOf)).toEqual(['numeric', 'boolean', 'categorical']);
  });
});
