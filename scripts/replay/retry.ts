/** Why a request is being retried, for progress output. */
export interface RetryNotice {
  /** `METHOD /path`. */
  request: string;
  /** `503`, `ECONNREFUSED`, … */
  reason: string;
  /** Retries of this request so far (1 on the first). */
  attempt: number;
  /** Wait before the next attempt, ms. */
  delayMs: number;
}

/** How {@link retryingFetch} retries. */
export interface RetryPolicy {
  /** How long one request keeps being retried after its first failure, ms. */
  retryForMs: number;
  /** First backoff ceiling, ms (doubles per retry; default 250). */
  baseDelayMs?: number;
  /** Largest backoff ceiling, ms (default 5000). */
  maxDelayMs?: number;
  /** Aborted (Ctrl-C): no further retry; a request still failing fails at once. */
  signal?: AbortSignal;
  /** Called before each wait. */
  onRetry?: (notice: RetryNotice) => void;
  /** Called when a request succeeds after retries (the service is back). */
  onRecovered?: () => void;
  /** The underlying fetch (default the global one). */
  fetch?: typeof fetch;
}

/** Statuses worth a retry while the service restarts or sheds load: 408, 429 and 5xx (503 included). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * A `fetch` that rides out a service that is down or restarting: a network failure (connection
 * refused, reset, …) or a 408 / 429 / 5xx answer is retried with capped exponential backoff and
 * full jitter (honouring `Retry-After`, capped at `maxDelayMs`), for up to `retryForMs` after the
 * request's first failure. The replay hands it to the client (`fetch` option), so registration,
 * guard checks, event batches and the read-back all wait for the service instead of failing: the
 * client then makes the same events in the same order as an undisturbed run (which deterministic
 * ids rely on). A request body must be a string (the client's are), so it can be sent again.
 *
 * Once the window is spent, or `signal` is aborted, the last answer is returned (or the last
 * network error thrown). The caller's own `init.signal` (the client's per-attempt timeout) is
 * respected: an aborted attempt is not retried here.
 */
export function retryingFetch(policy: RetryPolicy): typeof fetch {
  const base = policy.fetch ?? globalThis.fetch;
  const baseDelay = policy.baseDelayMs ?? 250;
  const maxDelay = policy.maxDelayMs ?? 5000;
  return async (input, init) => {
    const what = `${init?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname}`;
    let firstFailure: number | undefined;
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      let retryAfterMs: number | undefined;
      try {
        const res = await base(input, init);
        if (!isRetryableStatus(res.status)) {
          if (attempt > 0) policy.onRecovered?.();
          return res;
        }
        firstFailure ??= Date.now();
        if (!canRetry(firstFailure)) return res;
        reason = String(res.status);
        retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        await res.body?.cancel().catch(() => undefined);
      } catch (err) {
        if (init?.signal?.aborted) throw err;
        firstFailure ??= Date.now();
        if (!canRetry(firstFailure)) throw err;
        reason = networkReason(err);
      }
      const delayMs = Math.min(
        maxDelay,
        retryAfterMs ?? Math.floor(Math.random() * Math.min(maxDelay, baseDelay * 2 ** attempt)),
      );
      policy.onRetry?.({ request: what, reason, attempt: attempt + 1, delayMs });
      await sleep(delayMs, policy.signal);
    }
  };

  function canRetry(firstFailure: number): boolean {
    return !policy.signal?.aborted && Date.now() - firstFailure < policy.retryForMs;
  }
}

/** `ECONNREFUSED`-style code of a failed fetch, else its message. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return err instanceof Error ? err.message : String(err);
}

/** `Retry-After` in seconds (RFC 9110 §10.2.3, delay-seconds form), ms; undefined otherwise. */
function parseRetryAfter(v: string | null): number | undefined {
  return v && /^\d+$/.test(v.trim()) ? Number(v.trim()) * 1000 : undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
