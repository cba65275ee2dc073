/** Longest `Retry-After` the client honours, ms; longer asks are cut to this. */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Delay before retry number `attempt` (0 for the first retry), ms: "full jitter", a uniform draw
 * in `[0, min(maxMs, baseMs · 2^attempt)]`. `random` is injectable for tests.
 */
export function backoffDelayMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Parses a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns ms
 * (≥ 0, capped at {@link RETRY_AFTER_CAP_MS}), or `undefined` when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(0, Math.round(ms)), RETRY_AFTER_CAP_MS);
}

/** Resolves after `ms` milliseconds (a pending retry keeps the process alive, like its request). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0) resolve();
    else setTimeout(resolve, ms);
  });
}
