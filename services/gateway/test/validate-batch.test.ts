import { newId } from '@agent-warden/contracts';
import { validateBatch } from '../src/ingest/validate-batch';

const ev = (over: Record<string, unknown> = {}) => ({
  id: newId(),
  type: 'agent.custom',
  time: new Date().toISOString(),
  sessionId: newId(),
  agentId: newId(),
  agentVersionId: newId(),
  sequence: 1,
  data: { name: 'x' },
  ...over,
});

describe('validateBatch', () => {
  test('each event is checked on its own: valid ones pass, others are rejected with index, id, code and paths', () => {
    const good = ev();
    const wrong = ev({ sequence: 0 });
    const unknown = ev({ type: 'agent.nope' });
    const notObject = 42;
    const big = ev({ data: { name: 'x', data: 'y'.repeat(2000) } });
    const r = validateBatch([good, wrong, unknown, notObject, big], 1000);
    expect(r.valid.map((v) => v.index)).toEqual([0]);
    expect(r.rejected).toEqual([
      expect.objectContaining({
        index: 1,
        id: wrong.id,
        code: 'invalid_event',
        errors: [expect.objectContaining({ path: 'events.1.sequence' })],
      }),
      expect.objectContaining({
        index: 2,
        id: unknown.id,
        code: 'unknown_event_type',
        errors: [expect.objectContaining({ path: 'events.2.type' })],
      }),
      expect.objectContaining({ index: 3, id: null, code: 'unknown_event_type' }),
      expect.objectContaining({ index: 4, id: big.id, code: 'event_too_large' }),
    ]);
  });
  test('a time PostgreSQL could not store (year 0 or a 5-digit year in UTC) is rejected at its path, not acknowledged', () => {
    const r = validateBatch(
      [
        ev({ time: '0001-01-01T00:00:00+14:00' }),
        ev({ time: '9999-12-31T23:00:00-15:00' }),
        ev({ time: '1970-01-01T00:00:00Z' }),
        ev({ time: '2093-06-01T12:00:00+02:00' }),
      ],
      10_000,
    );
    expect(r.valid.map((v) => v.index)).toEqual([2, 3]);
    expect(r.rejected.map((x) => [x.index, x.code, x.errors?.[0]?.path])).toEqual([
      [0, 'invalid_event', 'events.0.time'],
      [1, 'invalid_event', 'events.1.time'],
    ]);
  });
  test('defaults are applied to accepted events', () => {
    const r = validateBatch([ev({ type: 'agent.session.ended', data: {} })], 10_000);
    expect(r.valid[0]!.event.data).toEqual({ status: 'completed' });
  });
});
