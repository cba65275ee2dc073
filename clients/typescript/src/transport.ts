import type { Problem } from '@agent-warden/contracts';
import { backoffDelayMs, parseRetryAfterMs, sleep } from './backoff';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  ValidationError,
  WardenError,
  isErrorLike,
} from './errors';
import { errorFields, type Logger } from './logger';

/** Settings of a {@link Transport}. */
export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Base of the exponential backoff, ms. */
  retryBaseDelayMs: number;
  /** Cap of one backoff delay, ms. */
  retryMaxDelayMs: number;
  /** Timeout of one attempt, ms. */
  requestTimeoutMs: number;
  logger: Logger;
  /** Called before each retry (for `stats().retries`). */
  onRetry?: () => void;
}

/** One request. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  /** Path with query, e.g. `/v1/approvals/apr_1?waitSeconds=20`. */
  path: string;
  /** JSON body. */
  body?: unknown;
  /** Extra time on top of `requestTimeoutMs` for this request (long polls), ms. */
  extraTimeoutMs?: number;
  /** Extra request headers (e.g. `Idempotency-Key`), sent on every attempt. */
  headers?: Record<string, string>;
}

/** True for statuses worth a retry: 408, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * JSON over HTTP with `Authorization: Bearer`, a timeout per attempt, and retries with capped
 * exponential backoff and full jitter on network errors, 408, 429 and 5xx (honouring
 * `Retry-After`). Other 4xx are never retried. The body is serialised once, so a retry sends the
 * same bytes (the same event ids).
 */
export class Transport {
  constructor(private readonly opts: TransportOptions) {}

  /**
   * Sends the request and returns the parsed JSON answer (`undefined` for an empty body).
   * Throws a {@link WardenError} subclass: `AuthenticationError` (401), `PermissionDeniedError`
   * (403), `ValidationError` (400/413/422), `NotFoundError` (404), `ApiError` (other 4xx),
   * `RateLimitError` (429), `ServiceUnavailableError` (408/5xx) or `ConnectionError` (no answer),
   * the last three only once `maxRetries` retries are spent.
   */
  async request<T>(spec: RequestSpec): Promise<T> {
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.attempt(spec, body)) as T;
      } catch (e) {
        const err = e instanceof WardenError ? e : new ConnectionError(String(e), { cause: e });
        if (!err.retryable || attempt >= this.opts.maxRetries) throw err;
        const retryAfterMs = (err as { retryAfterMs?: number }).retryAfterMs;
        const delayMs =
          retryAfterMs ?? backoffDelayMs(attempt, this.opts.retryBaseDelayMs, this.opts.retryMaxDelayMs);
        this.opts.logger.debug('warden request retry', {
          method: spec.method,
          path: spec.path.split('?')[0],
          attempt: attempt + 1,
          delayMs,
          ...errorFields(err),
        });
        this.opts.onRetry?.();
        await sleep(delayMs);
      }
    }
  }

  private async attempt(spec: RequestSpec, body: string | undefined): Promise<unknown> {
    const timeoutMs = this.opts.requestTimeoutMs + (spec.extraTimeoutMs ?? 0);
    const headers: Record<string, string> = {
      ...spec.headers,
      authorization: `Bearer ${this.opts.apiKey}`,
      accept: 'application/json, application/problem+json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.opts.fetch(this.opts.baseUrl + spec.path, {
        method: spec.method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      // Duck-typed: the DOMException of AbortSignal.timeout may come from another realm.
      const name = (e as { name?: unknown } | null)?.name;
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      const reason = timedOut ? `timed out after ${timeoutMs} ms` : describeNetworkError(e);
      throw new ConnectionError(`${spec.method} ${spec.path.split('?')[0]}: ${reason}`, {
        cause: e,
        timedOut,
      });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new ConnectionError(`${spec.method} ${spec.path.split('?')[0]}: body cut off`, { cause: e });
    }
    if (res.ok) return text ? parseJson(text) : undefined;
    throw errorFromResponse(
      res.status,
      text,
      res.headers.get('retry-after'),
      `${spec.method} ${spec.path.split('?')[0]}`,
    );
  }
}

/** Maps a non-2xx answer to the typed error of its status, parsing an RFC 9457 problem body. */
export function errorFromResponse(
  status: number,
  text: string,
  retryAfter: string | null,
  what: string,
): WardenError {
  const problem = parseProblem(text);
  const message = `${what}: ${status} ${problem?.detail ?? problem?.title ?? (text.slice(0, 200) || 'no body')}`;
  const init = { status, problem, retryAfterMs: parseRetryAfterMs(retryAfter) };
  if (status === 401) return new AuthenticationError(message, init);
  if (status === 403) return new PermissionDeniedError(message, init);
  if (status === 404) return new NotFoundError(message, init);
  if (status === 400 || status === 413 || status === 422) return new ValidationError(message, init);
  if (status === 429) return new RateLimitError(message, init);
  if (isRetryableStatus(status)) return new ServiceUnavailableError(message, init);
  return new ApiError(message, init);
}

function parseProblem(text: string): Problem | undefined {
  const v = text ? parseJson(text) : undefined;
  if (v && typeof v === 'object' && typeof (v as Problem).status === 'number') return v as Problem;
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeNetworkError(e: unknown): string {
  if (!isErrorLike(e)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  const code = cause && typeof cause === 'object' ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${e.message} (${code})` : e.message;
}
