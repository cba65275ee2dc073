import { keepStoredTimes } from '../stored-times';

describe('keepStoredTimes', () => {
  const sent: Array<{ url: string; body: unknown }> = [];
  const base = (async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(input),
      body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    return new Response('{}');
  }) as typeof fetch;
  beforeEach(() => sent.splice(0));

  it('sends an already stored event with its stored time, and new events as they are', async () => {
    const f = keepStoredTimes(base, new Map([['a', '2026-11-20T10:00:00.000Z']]));
    const events = [
      { id: 'a', time: '2026-11-24T12:00:00.000Z', sequence: 1 },
      { id: 'b', time: '2026-11-24T12:00:01.000Z', sequence: 2 },
    ];
    await f('http://h/v1/events', { method: 'POST', body: JSON.stringify({ events }) });
    expect(sent[0]!.body).toEqual({
      events: [
        { id: 'a', time: '2026-11-20T10:00:00.000Z', sequence: 1 },
        { id: 'b', time: '2026-11-24T12:00:01.000Z', sequence: 2 },
      ],
    });
  });

  it('leaves other requests alone', async () => {
    const f = keepStoredTimes(base, new Map([['a', '2026-11-20T10:00:00.000Z']]));
    const body = JSON.stringify({ events: [{ id: 'a', time: 'x' }] });
    await f('http://h/v1/guard', { method: 'POST', body });
    await f('http://h/v1/events', { method: 'GET' });
    expect(sent.map((s) => s.body)).toEqual([{ events: [{ id: 'a', time: 'x' }] }, undefined]);
  });
});
