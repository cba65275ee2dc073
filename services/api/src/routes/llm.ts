import { Router, type RequestHandler } from 'express';
import { UsageQuery, Uuid, type ActivityStatsView, type LlmUsageView } from '@agent-warden/contracts';
import {
  activityOverTime,
  findSession,
  listSessionLlmCalls,
  llmUsage,
  SESSION_LLM_CALLS_MAX,
  type PrismaClient,
} from '@agent-warden/db';
import { notFound, parseOr400, principalOf, validationError } from '@agent-warden/http';
import { llmCallView } from '../views';

const HOUR_MS = 3_600_000;
/** Most buckets one usage or activity query may ask for (~83 days by hour, ~5 years by day). */
export const MAX_USAGE_BUCKETS = 2000;

/**
 * `from` / `to` of a usage query: `to` defaults to now, `from` to 48 hours (`bucket=hour`) or 30
 * days (`bucket=day`) before `to`. 400 naming `from` when `from >= to`, naming `bucket` when the
 * range holds more than {@link MAX_USAGE_BUCKETS} buckets.
 */
function usageRange(q: UsageQuery): { from: Date; to: Date } {
  const to = q.to ? new Date(q.to) : new Date();
  const span = q.bucket === 'day' ? 30 * 24 * HOUR_MS : 48 * HOUR_MS;
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - span);
  if (from >= to)
    throw validationError('empty time range', [{ path: 'from', message: 'must be before `to`' }]);
  const ms = q.bucket === 'day' ? 24 * HOUR_MS : HOUR_MS;
  if (Math.ceil((to.getTime() - Math.floor(from.getTime() / ms) * ms) / ms) > MAX_USAGE_BUCKETS)
    throw validationError('too many buckets', [
      {
        path: 'bucket',
        message: `the range holds more than ${MAX_USAGE_BUCKETS} buckets; use a wider bucket`,
      },
    ]);
  return { from, to };
}

/**
 * LLM calls and the dashboard's rate charts (read scope; docs/architecture.md#llm-calls):
 * - `GET /v1/sessions/{sessionId}/llm-calls`: the session's calls, oldest first (at most
 *   {@link SESSION_LLM_CALLS_MAX}); 404 for an unknown session.
 * - `GET /v1/llm/usage?agentId&from&to&bucket`: calls, errors, tokens, cost and latency
 *   percentiles per bucket, per model and in total.
 * - `GET /v1/stats/activity?agentId&from&to&bucket`: events, tool calls and failures, LLM calls and
 *   errors per bucket.
 * An `agentId` of another project simply has no data (no 404: the figures are project-filtered).
 */
export function llmRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const { db } = deps;
  const r = Router();

  r.get('/v1/sessions/:sessionId/llm-calls', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    if (!(await findSession(db, projectId, id))) throw notFound('session');
    const rows = await listSessionLlmCalls(db, projectId, id, SESSION_LLM_CALLS_MAX);
    res.json({ items: rows.map(llmCallView) });
  });

  r.get('/v1/llm/usage', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(UsageQuery, req.query, 'query');
    const { from, to } = usageRange(q);
    const u = await llmUsage(db, projectId, { agentId: q.agentId, from, to, bucket: q.bucket });
    const iso = <T extends { start: Date }>(b: T) => ({ ...b, start: b.start.toISOString() });
    const body: LlmUsageView = {
      agentId: q.agentId ?? null,
      bucket: q.bucket,
      from: from.toISOString(),
      to: to.toISOString(),
      items: u.buckets.map(iso),
      models: u.models.map((m) => ({ ...m, buckets: m.buckets.map(iso) })),
      totals: u.totals,
    };
    res.json(body);
  });

  r.get('/v1/stats/activity', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(UsageQuery, req.query, 'query');
    const { from, to } = usageRange(q);
    const buckets = await activityOverTime(db, projectId, { agentId: q.agentId, from, to, bucket: q.bucket });
    const body: ActivityStatsView = {
      agentId: q.agentId ?? null,
      bucket: q.bucket,
      from: from.toISOString(),
      to: to.toISOString(),
      items: buckets.map((b) => ({ ...b, start: b.start.toISOString() })),
    };
    res.json(body);
  });
  return r;
}
