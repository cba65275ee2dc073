import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { AppError } from '@agent-warden/http';

/**
 * Failed sign-ins allowed in one window (`windowMs`, ms): `failures` per client address and email,
 * and `failuresPerAddress` per client address whatever the email.
 */
export const LOGIN_LIMIT = { failures: 10, failuresPerAddress: 50, windowMs: 15 * 60_000 } as const;

/** Settings of {@link loginLimiter}; see {@link LOGIN_LIMIT}. */
export interface LoginLimit {
  failures: number;
  failuresPerAddress: number;
  windowMs: number;
}

function emailOf(req: Request): string {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : '';
}

/**
 * Throttles password guessing on `POST /v1/auth/login` (express-rate-limit), two limiters in a row:
 * - per client address (IPv6 by /56, express-rate-limit's `ipKeyGenerator`) *and* email: after
 *   `failures` failed attempts (any answer ≥ 400) within `windowMs`, further attempts for that
 *   email from that address answer 429. Keyed by both, so nobody can lock a person out from elsewhere.
 * - per client address across emails: after `failuresPerAddress` failures, every attempt from that
 *   address answers 429, so spraying many emails from one address cannot buy unbounded scrypt work.
 * A 429 is `rate_limited` (RFC 9457 problem) with `Retry-After` until the window ends; successful
 * sign-ins are not counted. The counts live in this process's memory (docs/decisions.md
 * "Sign-in throttling", "Sign-in is throttled per address across emails too").
 * @returns the handlers to mount before the login route, in order
 */
export function loginLimiter(limit: LoginLimit = LOGIN_LIMIT): RequestHandler[] {
  return [
    limiter(
      limit.windowMs,
      limit.failuresPerAddress,
      (req) => ipKeyGenerator(req.ip ?? ''),
      'from this address',
    ),
    limiter(
      limit.windowMs,
      limit.failures,
      (req) => `${ipKeyGenerator(req.ip ?? '')}|${emailOf(req)}`,
      'for this email',
    ),
  ];
}

function limiter(
  windowMs: number,
  failures: number,
  keyGenerator: (req: Request) => string,
  scope: string,
): RequestHandler {
  return rateLimit({
    windowMs,
    limit: failures,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator,
    handler: (req, _res, next) => {
      const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
      const retryAfterSeconds = info?.resetTime
        ? Math.max(1, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000))
        : Math.ceil(windowMs / 1000);
      next(
        new AppError('rate_limited', `too many failed sign-ins ${scope}; try again later`, {
          retryAfterSeconds,
        }),
      );
    },
  });
}
