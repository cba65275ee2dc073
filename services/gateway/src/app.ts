import express, { Router, type Express, type RequestHandler } from 'express';
import type { EventBus } from '@agent-warden/bus';
import { authenticateApiKeyHash, type PrismaClient } from '@agent-warden/db';
import {
  apiKeyAuth,
  healthRouter,
  httpMetrics,
  METRICS_PATH,
  methodGuard,
  metricsHandler,
  noteCleanJsonBody,
  notFoundHandler,
  openApiRouter,
  problemHandler,
  requestJsonSafety,
  type KeyResolver,
} from '@agent-warden/http';
import { createMetrics, type Logger, type WardenMetrics } from '@agent-warden/observability';
import { AgentDirectory } from './agent-directory';
import type { IngestLimits } from './config';
import { writeThroughSink, type EvaluationSink } from './guard/evaluation-recorder';
import type { PolicyStore } from './guard/policy-store';
import { agentsRouter } from './routes/agents';
import { approvalsRouter } from './routes/approvals';
import { EVALUATE_PATH, evaluateHandler } from './routes/evaluate';
import { eventsRouter } from './routes/events';
import { isOtlpTracesPath, tracesRouter } from './routes/traces';

/** What the gateway's routes need. */
export interface GatewayDeps {
  db: PrismaClient;
  bus: EventBus;
  policies: PolicyStore;
  logger: Logger;
  limits: IngestLimits;
  defaultApprovalTimeoutSeconds: number;
  /** Approval long-poll re-read interval, ms (default 250). */
  approvalPollMs?: number;
  /**
   * Where evaluations are recorded. The gateway passes its buffered `EvaluationRecorder`; default:
   * write-through to `bus` (standalone, whose in-process bus is write-through itself).
   */
  evaluations?: EvaluationSink;
  /**
   * Where the routes count (guard decisions and latency, events accepted and rejected) and what
   * `createGatewayApp` serves on `/metrics`; default a registry of their own that nobody reads.
   */
  metrics?: WardenMetrics;
}

/**
 * Resolves API keys from PostgreSQL by hash, one query per hash at a time: requests that arrive
 * while a key is being looked up (e.g. when the auth cache entry of a busy key has just expired)
 * share that lookup instead of each sending its own query.
 */
export function dbKeyResolver(db: PrismaClient): KeyResolver {
  const inFlight = new Map<string, ReturnType<KeyResolver>>();
  return (hash) => {
    let lookup = inFlight.get(hash);
    if (!lookup) {
      lookup = authenticateApiKeyHash(db, hash).finally(() => inFlight.delete(hash));
      inFlight.set(hash, lookup);
    }
    return lookup;
  };
}

/**
 * The gateway's `/v1` routes (ingest scope), to mount on a gateway or standalone app, after the
 * JSON body parser. The guard check is the first route of this router, registered on it directly
 * (not as a nested router): it is the latency-critical route, and every router a request enters
 * costs allocations (docs/benchmarks.md "Guardrail evaluation: findings").
 */
export function gatewayRoutes(deps: GatewayDeps): Router {
  const resolve = dbKeyResolver(deps.db);
  const ingest = apiKeyAuth(resolve, 'ingest');
  const agents = new AgentDirectory(deps.db);
  const metrics = deps.metrics ?? createMetrics();
  const r = Router();
  r.post(
    EVALUATE_PATH,
    ingest,
    evaluateHandler({
      db: deps.db,
      evaluations: deps.evaluations ?? writeThroughSink(deps.bus),
      agents,
      policies: deps.policies,
      defaultApprovalTimeoutSeconds: deps.defaultApprovalTimeoutSeconds,
      metrics,
    }),
  );
  // After the guard check (its path takes POST only, and the hot route should enter no extra layer).
  r.use(methodGuard);
  r.use(agentsRouter({ auth: ingest, db: deps.db, agents }));
  r.use(eventsRouter({ auth: ingest, bus: deps.bus, agents, limits: deps.limits, metrics }));
  r.use(
    tracesRouter({
      auth: ingest,
      bus: deps.bus,
      db: deps.db,
      agents,
      limits: deps.limits,
      logger: deps.logger,
    }),
  );
  r.use(approvalsRouter({ auth: ingest, db: deps.db, pollMs: deps.approvalPollMs }));
  return r;
}

/**
 * The JSON body parser with the configured limit (413 `body_too_large` past it), followed by the
 * contract's storage rule on the body and the query (libs/http `requestJsonSafety`: U+0000 and lone
 * surrogates → U+FFFD, depth bounded; a batch's events are measured one by one by their route).
 * The parser's `verify` is `noteCleanJsonBody`: a UTF-8 body whose bytes hold no `\u0000` or
 * surrogate escape is not walked for cleaning, which would change nothing (docs/decisions.md
 * "Ingest skips the cleaning walk of a body with nothing to clean").
 * `POST /v1/traces` is left alone: its route reads the raw body (OTLP/JSON or protobuf, gzip).
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const json = express.json({
    limit: limitBytes,
    type: ['application/json', 'application/*+json'],
    verify: noteCleanJsonBody,
  });
  return [
    (req, res, next) => (isOtlpTracesPath(req.path) ? next() : json(req, res, next)),
    requestJsonSafety({ batchPaths: ['/v1/events'] }),
  ];
}

/**
 * The gateway as its own HTTP app: `/v1` routes, health, OpenAPI, problem+json errors.
 * `/ready` also reports the evaluation recorder's counters when `deps.evaluations` has them.
 * `extraRoutes` are mounted first (benchmarks mount a bare baseline route on the same server), then
 * the RED metrics and `GET /metrics` (no API key: docs/operations.md "Metrics") when `deps.metrics`
 * is given. The `/v1` routes come before health and OpenAPI, so a guard check enters one router only.
 */
export function createGatewayApp(
  deps: GatewayDeps,
  isReady: () => boolean,
  extraRoutes: Router[] = [],
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  for (const r of extraRoutes) app.use(r);
  if (deps.metrics) {
    app.use(httpMetrics(deps.metrics));
    app.get(METRICS_PATH, metricsHandler(deps.metrics));
  }
  app.use(jsonBody(deps.limits.maxBodyBytes));
  app.use(gatewayRoutes(deps));
  const stats = deps.evaluations?.stats?.bind(deps.evaluations);
  if (stats)
    app.get('/ready', (_req, res, next) => {
      // Not ready: healthRouter answers the 503.
      if (!isReady()) return next();
      res.json({ status: 'ready', evaluationRecorder: stats() });
    });
  app.use(healthRouter(isReady));
  app.use(openApiRouter());
  app.use(notFoundHandler);
  app.use(problemHandler(deps.logger));
  return app;
}
