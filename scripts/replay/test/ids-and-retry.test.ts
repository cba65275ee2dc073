import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isUuidV7 } from '@agent-warden/contracts';
import { nameBasedUuidV7, TrajectoryIds, REPLAY_ID_EPOCH_MS } from '../ids';
import { retryingFetch } from '../retry';

const identity = { namespace: '', projectId: 'p1', fileDigest: 'd1', trajectoryId: 'src/t1', line: 3 };

describe('deterministic replay ids', () => {
  test('are valid UUIDv7s, equal for equal inputs and different otherwise', () => {
    const a = nameBasedUuidV7('x', 5);
    expect(isUuidV7(a)).toBe(true);
    expect(nameBasedUuidV7('x', 5)).toBe(a);
    expect(nameBasedUuidV7('y', 5)).not.toBe(a);
    // The time field is the epoch plus the position.
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(REPLAY_ID_EPOCH_MS + 5);
  });

  test('a trajectory gives the same ids on every run; another project, line or namespace gives others', () => {
    const run = (over: Partial<typeof identity> = {}) => {
      const ids = new TrajectoryIds({ ...identity, ...over });
      return [ids.sessionId, ids.runId, ids.toolCallId(2), ids.next(), ids.next(), ids.next()];
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    for (const other of [run({ projectId: 'p2' }), run({ line: 4 }), run({ namespace: 'again' })])
      for (const id of other) expect(first).not.toContain(id);
  });
});

describe('retryingFetch', () => {
  let answers: number[];
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits += 1;
    res.statusCode = answers.shift() ?? 200;
    res.end('{}');
  });
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/events`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    hits = 0;
  });

  test('retries 503 and 500 until the service answers, and reports each retry', async () => {
    answers = [503, 500, 503];
    const notices: string[] = [];
    const f = retryingFetch({
      retryForMs: 10_000,
      baseDelayMs: 1,
      maxDelayMs: 5,
      onRetry: (n) => notices.push(n.reason),
    });
    const res = await f(url, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(hits).toBe(4);
    expect(notices).toEqual(['503', '500', '503']);
  });

  test('a 4xx is an answer, not retried', async () => {
    answers = [400];
    const res = await retryingFetch({ retryForMs: 10_000, baseDelayMs: 1 })(url);
    expect(res.status).toBe(400);
    expect(hits).toBe(1);
  });

  test('retries a refused connection, and gives up when the window is spent', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise((r) => closed.close(r));
    const reasons: string[] = [];
    const f = retryingFetch({
      retryForMs: 200,
      baseDelayMs: 10,
      maxDelayMs: 20,
      onRetry: (n) => reasons.push(n.reason),
    });
    await expect(f(deadUrl)).rejects.toThrow();
    expect(reasons.length).toBeGreaterThan(1);
    expect(reasons[0]).toBe('ECONNREFUSED');
  });

  test('stops retrying once its signal is aborted (Ctrl-C) and returns the last answer', async () => {
    answers = [503, 503, 503, 503, 503, 503];
    const stop = new AbortController();
    const f = retryingFetch({
      retryForMs: 60_000,
      baseDelayMs: 1,
      maxDelayMs: 5,
      signal: stop.signal,
      onRetry: (n) => {
        if (n.attempt === 2) stop.abort();
      },
    });
    const res = await f(url);
    expect(res.status).toBe(503);
    expect(hits).toBe(3);
  });
});
