import { backoffDelayMs, parseRetryAfterMs, RETRY_AFTER_CAP_MS } from '../src/backoff';
import { AuthenticationError, ConnectionError, ServiceUnavailableError, ValidationError } from '../src';
import { silentLogger } from '../src/logger';
import { Transport, type TransportOptions } from '../src/transport';
import { FakeWarden } from './fake-warden';

describe('backoff', () => {
  it('draws full jitter under a capped exponential ceiling', () => {
    expect(backoffDelayMs(0, 250, 10_000, () => 0.999)).toBe(249);
    expect(backoffDelayMs(3, 250, 10_000, () => 0.5)).toBe(1000);
    expect(backoffDelayMs(10, 250, 10_000, () => 0.999)).toBe(9990);
    expect(backoffDelayMs(4, 250, 10_000, () => 0)).toBe(0);
  });

  it('parses Retry-After seconds and dates, capped', () => {
    expect(parseRetryAfterMs('2')).toBe(2000);
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfterMs('86400')).toBe(RETRY_AFTER_CAP_MS);
  });
});

describe('Transport', () => {
  let server: FakeWarden;
  beforeEach(async () => {
    server = await new FakeWarden().start();
  });
  afterEach(() => server.stop());

  const make = (over: Partial<TransportOptions> = {}) => {
    let retries = 0;
    const t = new Transport({
      baseUrl: server.url,
      apiKey: 'test-key',
      fetch: globalThis.fetch,
      maxRetries: 3,
      retryBaseDelayMs: 5,
      retryMaxDelayMs: 20,
      requestTimeoutMs: 2000,
      logger: silentLogger,
      onRetry: () => retries++,
      ...over,
    });
    return { t, retries: () => retries };
  };
  const events = { events: [{ id: 'e1' }, { id: 'e2' }] };

  it('retries 503 honouring Retry-After, then succeeds with the same body', async () => {
    server.fail('/v1/events', 503, 1, { 'retry-after': '1' });
    const { t, retries } = make();
    const started = Date.now();
    await t.request({ method: 'POST', path: '/v1/events', body: events });
    const calls = server.requestsTo('/v1/events');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(calls[0]!.body).toEqual(calls[1]!.body);
    expect(retries()).toBe(1);
  });

  it('retries 429, 408 and 500 with backoff and gives up after maxRetries', async () => {
    server.fail('/v1/events', 429, 1);
    server.fail('/v1/events', 408, 1);
    server.fail('/v1/events', 500, 10);
    const { t, retries } = make({ maxRetries: 3 });
    const err = await t
      .request({ method: 'POST', path: '/v1/events', body: events })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ status: 500, retryable: true, problem: { code: 'internal' } });
    expect(server.requestsTo('/v1/events')).toHaveLength(4);
    expect(retries()).toBe(3);
  });

  it('never retries other 4xx and parses the problem body', async () => {
    server.fail('/v1/events', 400, 5);
    const { t, retries } = make();
    const err = await t
      .request({ method: 'POST', path: '/v1/events', body: events })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({
      code: 'validation_failed',
      status: 400,
      retryable: false,
      errors: [{ path: 'events.0.data', message: 'bad' }],
      problem: { code: 'validation_failed', title: 'Invalid body' },
    });
    expect(server.requestsTo('/v1/events')).toHaveLength(1);
    expect(retries()).toBe(0);

    server.faults.length = 0;
    const auth = await make({ apiKey: 'nope' })
      .t.request({ method: 'POST', path: '/v1/events', body: events })
      .catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
  });

  it('maps a refused connection to a retryable ConnectionError', async () => {
    const { t } = make({ maxRetries: 1 });
    await server.stop();
    const err = await t.request({ method: 'GET', path: '/health' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'connection_failed', retryable: true, timedOut: false });
  });

  it('times out a slow answer', async () => {
    server.identifyDelayMs = 500;
    const { t } = make({ maxRetries: 0, requestTimeoutMs: 50 });
    const err = await t
      .request({ method: 'POST', path: '/v1/agents/identify', body: { agent: { key: 'a' } } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'connection_failed', timedOut: true });
  });
});
