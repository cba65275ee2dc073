import { z } from 'zod';

/** Stable error codes of the HTTP API; `type` URIs are `https://agentwarden.dev/problems/<code>`. */
export const ERROR_CODES = {
  invalid_json: 400,
  validation_failed: 400,
  batch_too_large: 413,
  body_too_large: 413,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  rate_limited: 429,
  event_log_unavailable: 503,
  not_ready: 503,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** Base of the `type` URI of every problem. */
export const PROBLEM_TYPE_BASE = 'https://agentwarden.dev/problems/';

/** One validation error: a JSON-pointer-like dotted `path` (e.g. `events.3.data.toolName`) and a message. */
export const ValidationIssue = z.object({ path: z.string(), message: z.string() });
export type ValidationIssue = z.infer<typeof ValidationIssue>;

/** RFC 9457 problem details (`application/problem+json`) with a stable `code`. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.string(),
    errors: z.array(ValidationIssue).optional(),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof Problem>;

/** Converts zod issues to `{ path, message }` with dotted paths, prefixed by `prefix` path segments. */
export function issuesToErrors(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  prefix: ReadonlyArray<PropertyKey> = [],
): ValidationIssue[] {
  return issues.map((i) => ({
    path: [...prefix, ...i.path].map(String).join('.') || '(root)',
    message: i.message,
  }));
}
