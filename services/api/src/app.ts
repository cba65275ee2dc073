import express, { Router, type Express } from 'express';
import type { PrismaClient } from '@agent-warden/db';
import {
  healthRouter,
  httpMetrics,
  METRICS_PATH,
  methodGuard,
  metricsHandler,
  notFoundHandler,
  problemHandler,
  requestJsonSafety,
} from '@agent-warden/http';
import type { Logger, WardenMetrics } from '@agent-warden/observability';
import type { JobQueue } from '@agent-warden/queue';
import { createApiAuth, peopleRoutes, type PeopleAuthOptions } from './people';
import { backtestRouter } from './routes/backtest';
import { intelligenceRouter } from './routes/intelligence';
import type { PolicyChangeNotifier } from './policy-changes';
import { policiesRouter } from './routes/policies';
import { agentsRouter } from './routes/agents';
import { compareRouter } from './routes/compare';
import { llmRouter } from './routes/llm';
import { deletionRouter } from './routes/deletion';
import { exportRouter } from './routes/export';
import { readRouter } from './routes/read';
import { retentionRouter } from './routes/retention';
import { recommendationsRouter } from './routes/recommendations';
import { scoresRouter } from './routes/scores';
import { dashboardRouter } from './routes/static';
import { statsRouter } from './routes/stats';
import { webhooksRouter } from './routes/webhooks';

/** What the api's routes need. */
export interface ApiDeps extends PeopleAuthOptions {
  /** Dashboard build to serve (`WARDEN_DASHBOARD_DIR`); default services/dashboard/dist. Used by createApiApp only. */
  dashboardDir?: string;
  db: PrismaClient;
  logger: Logger;
  /** Producer of `session-ready` jobs (regenerate intelligence); without it that route answers 503. */
  queue?: JobQueue;
  /** Told after policy writes: stack, a hint on `policy-changes` (with `KAFKA_BROKERS`); standalone, its store. */
  policyChanges?: PolicyChangeNotifier;
  /**
   * Where the routes count (approvals' time to decision); `createApiApp` also records the RED
   * metrics and serves `GET /metrics` with it (docs/operations.md "Metrics").
   */
  metrics?: WardenMetrics;
}

/** The api's `/v1` routes (read API, approvals, policies), to mount on the api or the standalone app. */
export function apiRoutes(deps: ApiDeps): Router {
  const auth = createApiAuth(deps.db, deps);
  const { read, admin, approve, projectRead, projectAdmin } = auth;
  const r = Router();
  r.use(methodGuard); // 405 / OPTIONS for the whole app before a templated route takes a literal path
  for (const people of peopleRoutes({ ...deps, auth })) r.use(people);
  // Before the read router: `/v1/sessions/export` is not a session id.
  r.use(exportRouter({ auth: read, db: deps.db }));
  r.use(readRouter({ auth: read, db: deps.db }));
  r.use(deletionRouter({ admin, projectAdmin, db: deps.db, queue: deps.queue, logger: deps.logger }));
  r.use(retentionRouter({ projectRead, projectAdmin, db: deps.db }));
  r.use(scoresRouter({ read, approve, db: deps.db }));
  r.use(agentsRouter({ auth: read, db: deps.db }));
  r.use(compareRouter({ auth: read, db: deps.db }));
  r.use(statsRouter({ auth: read, db: deps.db }));
  r.use(llmRouter({ auth: read, db: deps.db }));
  r.use(backtestRouter({ auth: admin, db: deps.db }));
  r.use(policiesRouter({ read, admin, db: deps.db, policyChanges: deps.policyChanges }));
  r.use(intelligenceRouter({ read, admin, db: deps.db, queue: deps.queue }));
  r.use(recommendationsRouter({ read, admin, db: deps.db }));
  r.use(webhooksRouter({ admin, db: deps.db }));
  return r;
}

/** The api as its own HTTP app; with `deps.metrics`, RED metrics and `GET /metrics` (no credential) first. */
export function createApiApp(deps: ApiDeps, isReady: () => boolean, extra: Router[] = []): Express {
  const app = express();
  app.disable('x-powered-by');
  if (deps.metrics) {
    app.use(httpMetrics(deps.metrics));
    app.get(METRICS_PATH, metricsHandler(deps.metrics));
  }
  app.use(healthRouter(isReady));
  app.use(express.json({ limit: 1024 * 1024 }), requestJsonSafety());
  for (const r of extra) app.use(r);
  app.use(apiRoutes(deps));
  app.use(dashboardRouter({ dir: deps.dashboardDir }));
  app.use(notFoundHandler);
  app.use(problemHandler(deps.logger));
  return app;
}
