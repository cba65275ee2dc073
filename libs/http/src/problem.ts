import type { ErrorRequestHandler, RequestHandler } from 'express';
import { PROBLEM_TYPE_BASE, type Problem } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { AppError } from './errors';
import { allowedMethods, methodNotAllowed } from './method-not-allowed';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Builds an RFC 9457 problem body for an {@link AppError}. */
export function toProblem(err: AppError, instance?: string): Problem {
  const p: Problem = {
    type: PROBLEM_TYPE_BASE + err.code,
    title: TITLES[err.status] ?? 'Error',
    status: err.status,
    detail: err.message,
    code: err.code,
  };
  if (instance) p.instance = instance;
  if (err.options.errors) p.errors = err.options.errors;
  return p;
}

/** Maps body-parser failures (`entity.parse.failed`, `entity.too.large`) to typed errors. */
function fromBodyParser(err: unknown): AppError | undefined {
  if (!err || typeof err !== 'object' || !('type' in err)) return undefined;
  const e = err as { type: string; limit?: number; message: string };
  if (e.type === 'entity.parse.failed')
    return new AppError('invalid_json', `request body is not valid JSON: ${e.message}`, {
      errors: [{ path: '(root)', message: 'malformed JSON' }],
    });
  if (e.type === 'entity.too.large')
    return new AppError('body_too_large', `request body exceeds the limit of ${e.limit} bytes`, {
      errors: [{ path: '(root)', message: `larger than ${e.limit} bytes` }],
    });
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return new AppError('validation_failed', e.message);
  return undefined;
}

/** Sends `application/problem+json` for any error; 5xx are logged with the stack. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appErr =
      err instanceof AppError
        ? err
        : (fromBodyParser(err) ?? new AppError('internal', 'internal error', { cause: err }));
    if (appErr.status >= 500) logger.error({ err, path: req.path, code: appErr.code }, 'request failed');
    if (appErr.options.retryAfterSeconds !== undefined)
      res.setHeader('Retry-After', String(appErr.options.retryAfterSeconds));
    res
      .status(appErr.status)
      .type('application/problem+json')
      .send(JSON.stringify(toProblem(appErr, req.originalUrl)));
  };
}

/**
 * The last handler of an app: 405 `method_not_allowed` with an `Allow` header (RFC 9110 §15.5.6)
 * when a route of the app has this path with other methods, else 404 `not_found`.
 */
export const notFoundHandler: RequestHandler = (req, res, next) => {
  const allow = allowedMethods(req);
  if (allow.length > 0 && !allow.includes(req.method)) return next(methodNotAllowed(req, res, allow));
  next(new AppError('not_found', `no route for ${req.method} ${req.path}`));
};
