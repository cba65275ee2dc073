/**
 * When to try a failed delivery again (docs/operations.md#notifications): exponential backoff
 * with "full jitter" (AWS Architecture Blog, "Exponential Backoff And Jitter"): the n-th retry
 * waits a uniformly random time in [d/2, d] where d = min(baseMs · 2^(n-1), maxMs), so that
 * receivers coming back are not hit by every sender at once. A `Retry-After` (429/503, RFC 9110
 * §10.2.3) longer than that wins.
 */
export function retryDelayMs(
  attempt: number,
  o: { baseMs: number; maxMs: number; retryAfterMs?: number | null },
  random: () => number = Math.random,
): number {
  const d = Math.min(o.maxMs, o.baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = d / 2 + random() * (d / 2);
  return Math.round(Math.max(jittered, Math.min(o.retryAfterMs ?? 0, o.maxMs)));
}

/** A `Retry-After` header in ms (delay-seconds or an HTTP date, RFC 9110 §10.2.3), or null. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Whether an attempt that got `status` (null: no answer, a network error or timeout) is tried again: network errors, 408, 429 and 5xx. */
export function isRetriable(status: number | null): boolean {
  return status === null || status === 408 || status === 429 || status >= 500;
}
