/**
 * The dashboard's one way to call the API: same-origin `fetch` with the session cookie, the CSRF
 * header on every non-GET request (`X-Warden-CSRF: 1`), JSON in and out, and problem+json
 * (RFC 9457) answers turned into {@link ApiError} with the field errors (`errors[].path`).
 */

/** One field error of a problem+json answer; `path` is dotted, e.g. `match.all.0.value`. */
export interface FieldError {
  path: string;
  message: string;
}

/** An API answer that was not 2xx. `status` 0 means the request never got an answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    readonly errors: FieldError[],
    readonly code?: string,
  ) {
    super(detail ? `${title}: ${detail}` : title);
    this.name = 'ApiError';
  }
}

/** Query values; `undefined`, `null` and `''` are left out. */
export type Query = Record<string, string | number | boolean | undefined | null>;

/** `path?query` with empty values dropped. */
export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

interface ProblemBody {
  title?: string;
  detail?: string;
  code?: string;
  type?: string;
  errors?: { path?: string | (string | number)[]; message?: string }[];
}

/**
 * Calls the API. Throws {@link ApiError} for a non-2xx answer (with the problem's field errors) or a
 * network failure (status 0). A 204 resolves with `undefined`.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; query?: Query; signal?: AbortSignal } = {},
): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-warden-csrf'] = '1';
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(path, init.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The service did not answer', (err as Error).message, []);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const p = (body ?? {}) as ProblemBody;
    const errors = (p.errors ?? []).map((e) => ({
      path: Array.isArray(e.path) ? e.path.join('.') : (e.path ?? ''),
      message: e.message ?? 'invalid',
    }));
    throw new ApiError(res.status, p.title ?? res.statusText ?? 'Request failed', p.detail, errors, p.code);
  }
  return body as T;
}

/** A cursor page as the API returns it (newest first unless told otherwise). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
