import type { z } from 'zod';
import { Problem } from './problem';

/**
 * Building blocks of the OpenAPI path objects (openapi*.ts): a JSON response, a problem+json
 * response (RFC 9457), and the 400 every validated route can answer.
 */

/** A `200`-style response whose `application/json` body is `schema`. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** An error response with an `application/problem+json` body. */
export const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

/** 429 `rate_limited` with `Retry-After` (seconds, RFC 9110 §10.2.3). */
export const rateLimited = (description: string) => ({
  '429': {
    ...problem(description),
    headers: {
      'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer' as const } },
    },
  },
});

/** A JSON request body. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
});

/** 400 of a route that validates its body or parameters. */
export const invalid = {
  '400': problem('Invalid body or parameters; `errors` names each offending path'),
};

/** Security of the api's routes open to people (`warden_session` cookie) and API keys. */
export const keyOrCookie: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

/** 400, 401 and 403 of a route that takes a bearer API key or the session cookie. */
export const keyOrCookieErrors = {
  ...invalid,
  '401': problem('No valid API key or session cookie'),
  '403': problem(
    'The key lacks the scope or the person the role ("role viewer cannot approve"), or a cookie request without X-Warden-CSRF: 1',
  ),
};
