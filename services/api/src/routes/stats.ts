import { Router, type RequestHandler } from 'express';
import {
  DecisionStatsQuery,
  TopPoliciesQuery,
  type DecisionStatsView,
  type TopPoliciesView,
} from '@agent-warden/contracts';
import { bucketCount, decisionsOverTime, topMatchedPolicies, type PrismaClient } from '@agent-warden/db';
import { parseOr400, principalOf, validationError } from '@agent-warden/http';

const HOUR_MS = 3_600_000;
/** Most buckets one decisions query may ask for (~83 days by hour, ~5 years by day). */
export const MAX_BUCKETS = 2000;

/** `from`/`to` of a stats query: `to` defaults to now, `from` to `defaultSpanMs` before `to`. 400 when `from >= to`. */
function range(q: { from?: string; to?: string }, defaultSpanMs: number): { from: Date; to: Date } {
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - defaultSpanMs);
  if (from >= to)
    throw validationError('empty time range', [{ path: 'from', message: 'must be before `to`' }]);
  return { from, to };
}

/**
 * Guardrails page statistics (read scope): `GET /v1/stats/decisions` (evaluations per hour or
 * day by policy decision) and `GET /v1/stats/top-policies` (most matched policies).
 */
export function statsRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const r = Router();
  r.get('/v1/stats/decisions', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(DecisionStatsQuery, req.query, 'query');
    const { from, to } = range(q, q.bucket === 'day' ? 7 * 24 * HOUR_MS : 48 * HOUR_MS);
    if (bucketCount(from, to, q.bucket) > MAX_BUCKETS)
      throw validationError('too many buckets', [
        { path: 'bucket', message: `the range holds more than ${MAX_BUCKETS} buckets; use a wider bucket` },
      ]);
    const { buckets, totals } = await decisionsOverTime(deps.db, projectId, { from, to, bucket: q.bucket });
    const body: DecisionStatsView = {
      bucket: q.bucket,
      from: from.toISOString(),
      to: to.toISOString(),
      items: buckets.map((b) => ({ ...b, start: b.start.toISOString() })),
      totals,
    };
    res.json(body);
  });

  r.get('/v1/stats/top-policies', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(TopPoliciesQuery, req.query, 'query');
    const { from, to } = range(q, 7 * 24 * HOUR_MS);
    const rows = await topMatchedPolicies(deps.db, projectId, { from, to, limit: q.limit });
    const body: TopPoliciesView = {
      from: from.toISOString(),
      to: to.toISOString(),
      items: rows.map((p) => ({ ...p, lastMatchedAt: p.lastMatchedAt.toISOString() })),
    };
    res.json(body);
  });
  return r;
}
