import express, { type Request, type RequestHandler } from 'express';
import type { Logger, WardenMetrics } from '@agent-warden/observability';
import { notFoundHandler, problemHandler } from './problem';
import { listen, type RunningServer } from './server';

/** Path of the Prometheus exposition on every service (docs/operations.md "Metrics"). */
export const METRICS_PATH = '/metrics';

/** Route label of a request no route answered (404s, static files, a method refused early). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route template that answered `req` (`/v1/sessions/:sessionId`), never the raw path: a label
 * must not take unbounded values. {@link UNMATCHED_ROUTE} when no route did. The services mount
 * their routers without a path, so a route's own path is the whole template; under a router
 * mounted at a path, express restores `req.baseUrl` when an error leaves that router, so such an
 * error answer would be labelled with the route's path alone.
 */
export function routeTemplate(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return route && typeof route.path === 'string' ? req.baseUrl + route.path : UNMATCHED_ROUTE;
}

/**
 * RED metrics of every request (`warden_http_requests_total` by route template, method and status;
 * `warden_http_request_duration_seconds` by route template and method), recorded when the response
 * has been sent. Mount first. Costs one `finish` listener per request and no label of unbounded
 * values (docs/operations.md "Metrics"). Requests whose client went away before the answer are not
 * counted.
 */
export function httpMetrics(metrics: WardenMetrics): RequestHandler {
  const { requests, duration } = metrics.http;
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      const route = routeTemplate(req);
      requests.inc({ route, method: req.method, status: String(res.statusCode) });
      duration.observe({ route, method: req.method }, (performance.now() - started) / 1000);
    });
    next();
  };
}

/**
 * `GET /metrics`: the Prometheus text exposition of `metrics`. Needs no credential (operators'
 * scrapers call it; it holds counts and durations, never an id, key or payload:
 * docs/decisions.md "Prometheus metrics through prom-client"). Mount before any auth and before a
 * dashboard fallback.
 */
export function metricsHandler(metrics: WardenMetrics): RequestHandler {
  return async (_req, res, next) => {
    try {
      const { contentType, body } = await metrics.scrape();
      res.set('Content-Type', contentType).set('Cache-Control', 'no-store').send(body);
    } catch (err) {
      next(err);
    }
  };
}

/** A running `/metrics` server of a service without an HTTP API (projector, intelligence worker). */
export interface MetricsServer {
  /** The server's URL; undefined when started with port 0 (no server). */
  url?: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` alone on `port` (`WARDEN_METRICS_PORT` of the projector and the
 * intelligence worker); port 0 means no server. Any other path gets the 404 problem. Rejects when
 * the port is taken.
 */
export async function startMetricsServer(
  port: number,
  metrics: WardenMetrics,
  logger: Logger,
): Promise<MetricsServer> {
  if (port === 0) return { close: async () => undefined };
  const app = express();
  app.disable('x-powered-by');
  app.get(METRICS_PATH, metricsHandler(metrics));
  app.use(notFoundHandler);
  app.use(problemHandler(logger));
  const server: RunningServer = await listen(app, port);
  return { url: server.url, close: () => server.close() };
}
