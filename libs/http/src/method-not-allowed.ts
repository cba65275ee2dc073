import type { Application, Request, RequestHandler, Response } from 'express';
import { AppError } from './errors';
import { match } from 'path-to-regexp';

/** A route of an app: its path matcher and the methods it answers (upper case). */
interface KnownRoute {
  matches: (path: string) => boolean;
  methods: string[];
  /** No parameter in the path (`/v1/policies/export`, not `/v1/policies/:policyId`). */
  literal: boolean;
}

/** A layer of an express 5 (router 2.x) stack, as far as this walk needs it. */
interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

const cache = new WeakMap<object, KnownRoute[]>();

/**
 * The routes registered on `app` and the routers it mounts (at the root), read once from its
 * router's stack and matched the way express matches them (path-to-regexp, case-insensitive,
 * optional trailing slash). Wildcard routes are skipped: they name no path.
 */
function knownRoutes(app: Application): KnownRoute[] {
  const router = app.router as unknown as { stack?: Layer[] } | undefined;
  if (!router?.stack) return [];
  let routes = cache.get(router);
  if (routes) return routes;
  routes = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const { path, methods } = layer.route;
        if (typeof path !== 'string' || path.includes('*')) continue;
        const m = match(path, { end: true, trailing: true, sensitive: false, decode: false });
        routes!.push({
          matches: (p) => m(p) !== false,
          literal: !/[:*{]/.test(path),
          methods: Object.keys(methods)
            .filter((k) => methods[k] && k !== '_all')
            .map((k) => k.toUpperCase()),
        });
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk(router.stack);
  cache.set(router, routes);
  return routes;
}

/**
 * The methods the app answers on `req.path` (RFC 9110 §10.2.1 `Allow`), HEAD included wherever GET
 * is (express answers HEAD with the GET route), sorted; empty when no route has this path. A path
 * that a literal route names belongs to the literal routes only, as in OpenAPI ("concrete paths are
 * matched before their templated counterparts"): `/v1/policies/export` is not a `{policyId}`.
 */
export function allowedMethods(req: Request): string[] {
  const matching = knownRoutes(req.app).filter((r) => r.matches(req.path));
  const literal = matching.filter((r) => r.literal);
  const allowed = new Set((literal.length > 0 ? literal : matching).flatMap((r) => r.methods));
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort();
}

/** The 405 `method_not_allowed` problem for `req`, with its `Allow` header set on `res`. */
export function methodNotAllowed(req: Request, res: Response, allow: string[]): AppError {
  res.setHeader('Allow', allow.join(', '));
  return new AppError(
    'method_not_allowed',
    `${req.method} is not allowed on ${req.path}; use ${allow.join(', ')}`,
  );
}

/**
 * Method handling in front of a router's routes: `OPTIONS` on a known path answers 204 with the
 * `Allow` of the whole app (express's own answer lists only the first router's methods), and a
 * method that a literal path does not take answers 405 before a templated route
 * (`PUT /v1/policies/:policyId`) could take `/v1/policies/backtest` for an id. Other requests pass.
 */
export const methodGuard: RequestHandler = (req, res, next) => {
  const allow = allowedMethods(req);
  if (allow.length === 0 || allow.includes(req.method)) return next();
  if (req.method === 'OPTIONS') {
    res.setHeader('Allow', allow.join(', '));
    res.status(204).end();
    return;
  }
  const literal = knownRoutes(req.app).some((r) => r.literal && r.matches(req.path));
  if (!literal) return next();
  next(methodNotAllowed(req, res, allow));
};
