import http from 'node:http';
import type { Express } from 'express';

/**
 * A `node:http` server for an express 5 app whose requests and responses are created with the
 * app's own prototypes (`app.request`, `app.response`) instead of being re-prototyped per request.
 *
 * Why: express's `app.handle` calls `Object.setPrototypeOf(req, app.request)` and
 * `Object.setPrototypeOf(res, app.response)` on every request (expressjs/express#5998). In V8
 * that leaves per-request garbage the scavenger cannot free: measured on this project's machine
 * at 1,000 requests/s, ~8 KB per request was promoted to the old space (126 MB in 15 s), which
 * caused a mark-compact every 2–5 s (3–9 ms pauses) and 4 ms scavenges — the p99 tail of the
 * gateway's guard check (docs/benchmarks.md "Guardrail evaluation: findings"). When the objects
 * are *born* with `app.request` / `app.response` as prototype (node's `createServer` options
 * `IncomingMessage` / `ServerResponse`, documented in node:http), express's `setPrototypeOf`
 * finds the prototype already in place and V8 changes nothing: promotion fell to ~2.5 MB in 8 s
 * with no mark-compact, and scavenges to 0.6 ms.
 *
 * How: two `class … extends` subclasses of node's `IncomingMessage` / `ServerResponse` whose
 * prototypes take the place of the app's: each inherits from what `app.request` inherited from
 * (express's request / response) and carries `app.request`'s own properties (`app`). Then
 * `app.request` / `app.response` point at them, so `req.app`, `req.ip`, `res.json` … behave as
 * before. Call once per app, before it serves anything. Sub-apps mounted inside `app` keep
 * working (express re-prototypes on entry and exit as before; only those requests pay the cost).
 *
 * @returns the server, not listening yet.
 */
export function createExpressServer(app: Express): http.Server {
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse extends http.ServerResponse {}
  adopt(ExpressRequest.prototype, app.request);
  adopt(ExpressResponse.prototype, app.response);
  app.request = ExpressRequest.prototype as unknown as Express['request'];
  app.response = ExpressResponse.prototype as unknown as Express['response'];
  return http.createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app);
}

/** Makes `target` stand in for `source`: the same prototype and the same own properties. */
function adopt(target: object, source: object): void {
  Object.setPrototypeOf(target, Object.getPrototypeOf(source) as object);
  Object.defineProperties(target, Object.getOwnPropertyDescriptors(source));
}
