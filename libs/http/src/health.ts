import { Router } from 'express';
import { AppError } from './errors';

/**
 * `/health` (alive: 200 while the process serves HTTP) and `/ready` (can serve: 200 while
 * `isReady()` is true, else 503 problem). Shutdown flips readiness first (docs/conventions.md#start-up-and-shutdown).
 */
export function healthRouter(isReady: () => boolean | Promise<boolean>): Router {
  const r = Router();
  r.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/ready', async (_req, res, next) => {
    try {
      if (await isReady()) res.json({ status: 'ready' });
      else next(new AppError('not_ready', 'not ready', { retryAfterSeconds: 1 }));
    } catch (err) {
      next(new AppError('not_ready', 'readiness check failed', { cause: err }));
    }
  });
  return r;
}
