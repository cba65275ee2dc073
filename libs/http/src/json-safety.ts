import type { RequestHandler } from 'express';
import { MAX_BODY_DEPTH, walkJson } from '@agent-warden/contracts';
import { validationError } from './errors';

/**
 * Applies the contract's storage rule to every request (docs/decisions.md "What storage cannot
 * hold"; `walkJson` in libs/contracts): U+0000 and lone surrogates become U+FFFD in every string
 * and key of the parsed JSON body and of the query parameters, and a body nested deeper than
 * {@link MAX_BODY_DEPTH} levels is refused with 400 `validation_failed` naming the path where the
 * limit was crossed. The walk is iterative, so it cannot overflow the stack itself, and it runs
 * right after the body parser, before any route (or anything recursive) touches the body.
 *
 * Mount right after `express.json()`. Paths in `batchPaths` (`/v1/events`) carry a batch whose
 * items are measured one by one by their route, so that one over-deep event is rejected on its own
 * while the batch's valid events are stored: there the body is cleaned but not measured.
 *
 * @param options.batchPaths request paths (exact, as `req.path`) whose body depth the route checks.
 */
export function requestJsonSafety(options: { batchPaths?: readonly string[] } = {}): RequestHandler {
  const batchPaths = new Set(options.batchPaths ?? []);
  return (req, _res, next) => {
    if (req.url.includes('?')) {
      // express 5 parses the query on every read of `req.query` (a getter): keep the cleaned copy.
      const query = walkJson(req.query, Infinity, true).value;
      Object.defineProperty(req, 'query', {
        value: query,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    const body: unknown = req.body;
    if (body === undefined || body === null) return next();
    const maxDepth = batchPaths.has(req.path) ? Infinity : MAX_BODY_DEPTH;
    const { value, tooDeepAt } = walkJson(body, maxDepth, true);
    req.body = value;
    if (tooDeepAt) {
      const path = tooDeepAt.join('.') || '(root)';
      return next(
        validationError(`the body is nested deeper than ${MAX_BODY_DEPTH} levels at ${path}`, [
          { path, message: `nested deeper than ${MAX_BODY_DEPTH} levels` },
        ]),
      );
    }
    next();
  };
}
