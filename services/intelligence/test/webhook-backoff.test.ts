import { isRetriable, parseRetryAfter, retryDelayMs } from '../src/webhooks/backoff';

describe('webhook retry schedule', () => {
  const o = { baseMs: 1000, maxMs: 60_000 };

  it('doubles per attempt, jittered within [d/2, d]', () => {
    expect(retryDelayMs(1, o, () => 0)).toBe(500);
    expect(retryDelayMs(1, o, () => 1)).toBe(1000);
    expect(retryDelayMs(4, o, () => 0)).toBe(4000);
    expect(retryDelayMs(4, o, () => 1)).toBe(8000);
  });

  it('never waits longer than the maximum', () => {
    expect(retryDelayMs(30, o, () => 1)).toBe(60_000);
  });

  it('honours a longer Retry-After, capped by the maximum', () => {
    expect(retryDelayMs(1, { ...o, retryAfterMs: 20_000 }, () => 1)).toBe(20_000);
    expect(retryDelayMs(1, { ...o, retryAfterMs: 600_000 }, () => 1)).toBe(60_000);
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(parseRetryAfter('Tue, 24 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });

  it('retries network errors, 408, 429 and 5xx only', () => {
    for (const s of [null, 408, 429, 500, 502, 503]) expect(isRetriable(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 410, 301]) expect(isRetriable(s)).toBe(false);
  });
});
