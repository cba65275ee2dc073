import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitInfo } from 'express-rate-limit';
import { AppError } from '@agent-warden/http';

/** Failed sign-ins allowed per client address and email in one window, and the window, ms. */
export const LOGIN_LIMIT = { failures: 10, windowMs: 15 * 60_000 } as const;

function emailOf(req: Request): string {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : '';
}

/**
 * Throttles password guessing on `POST /v1/auth/login` (express-rate-limit): after
 * `failures` failed attempts (any answer ≥ 400) for one email from one client address (IPv6 by
 * /56, express-rate-limit's `ipKeyGenerator`) within `windowMs`, further attempts answer 429
 * `rate_limited` (RFC 9457 problem) with `Retry-After` until the window ends; successful sign-ins
 * are not counted. Keyed by address *and* email, so nobody can lock a person out from elsewhere.
 * The counts live in this process's memory (docs/decisions.md "Sign-in throttling").
 */
export function loginLimiter(limit: { failures: number; windowMs: number } = LOGIN_LIMIT): RequestHandler {
  return rateLimit({
    windowMs: limit.windowMs,
    limit: limit.failures,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => `${ipKeyGenerator(req.ip ?? '')}|${emailOf(req)}`,
    handler: (req, _res, next) => {
      const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
      const retryAfterSeconds = info?.resetTime
        ? Math.max(1, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000))
        : Math.ceil(limit.windowMs / 1000);
      next(
        new AppError('rate_limited', 'too many failed sign-ins for this email; try again later', {
          retryAfterSeconds,
        }),
      );
    },
  });
}
