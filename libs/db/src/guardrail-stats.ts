import type { PrismaClient } from './client';

/** Per-decision counts; every decision present. */
export interface DecisionCountsRow {
  allow: number;
  warn: number;
  block: number;
  require_approval: number;
}

/** One bucket of {@link decisionsOverTime}. */
export interface DecisionBucket extends DecisionCountsRow {
  /** Bucket start (UTC). */
  start: Date;
  total: number;
}

const DECISIONS = ['allow', 'warn', 'block', 'require_approval'] as const;
const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;

/** All-zero counts. */
export function zeroDecisions(): DecisionCountsRow {
  return { allow: 0, warn: 0, block: 0, require_approval: 0 };
}

function addCount(c: DecisionCountsRow, decision: string, n: number): void {
  if ((DECISIONS as readonly string[]).includes(decision)) c[decision as keyof DecisionCountsRow] += n;
}

/** Start of the UTC hour / day holding `t`. */
export function bucketStart(t: Date, bucket: 'hour' | 'day'): Date {
  const ms = BUCKET_MS[bucket];
  return new Date(Math.floor(t.getTime() / ms) * ms);
}

/** Number of buckets {@link decisionsOverTime} returns for a range. */
export function bucketCount(from: Date, to: Date, bucket: 'hour' | 'day'): number {
  const first = bucketStart(from, bucket).getTime();
  return to.getTime() <= first ? 0 : Math.ceil((to.getTime() - first) / BUCKET_MS[bucket]);
}

/**
 * Guardrail evaluations (dry runs excluded) with `from <= evaluated_at < to`, counted per UTC
 * hour or day and per `policy_decision`. Every bucket from the one holding `from` to the one
 * before `to` is returned, in time order, zeros included. Served by
 * `guardrail_evaluations (project_id, evaluated_at)`. Throws on database errors.
 */
export async function decisionsOverTime(
  db: PrismaClient,
  projectId: string,
  range: { from: Date; to: Date; bucket: 'hour' | 'day' },
): Promise<{ buckets: DecisionBucket[]; totals: DecisionCountsRow }> {
  const rows = await db.$queryRaw<{ b: Date; d: string; n: bigint }[]>`
    SELECT date_trunc(${range.bucket}, evaluated_at, 'UTC') AS b, policy_decision AS d, count(*) AS n
      FROM guardrail_evaluations
     WHERE project_id = ${projectId}::uuid AND NOT dry_run
       AND evaluated_at >= ${range.from}::timestamptz AND evaluated_at < ${range.to}::timestamptz
     GROUP BY 1, 2`;
  const ms = BUCKET_MS[range.bucket];
  const first = bucketStart(range.from, range.bucket).getTime();
  const buckets: DecisionBucket[] = Array.from(
    { length: bucketCount(range.from, range.to, range.bucket) },
    (_, i) => ({
      start: new Date(first + i * ms),
      total: 0,
      ...zeroDecisions(),
    }),
  );
  const totals = zeroDecisions();
  for (const r of rows) {
    const bucket = buckets[Math.round((new Date(r.b).getTime() - first) / ms)];
    const n = Number(r.n);
    if (!bucket) continue;
    addCount(bucket, r.d, n);
    bucket.total += n;
    addCount(totals, r.d, n);
  }
  return { buckets, totals };
}

/** One policy of {@link topMatchedPolicies}. */
export interface TopPolicyRow {
  policyId: string;
  name: string;
  matches: number;
  /** Matches by the decision the policy asked for. */
  decisions: DecisionCountsRow;
  lastMatchedAt: Date;
}

/**
 * The `limit` policies matched most often by evaluations (dry runs excluded) with
 * `from <= evaluated_at < to`, read from the evaluations' `matched_guardrails` JSON; most
 * matches first (ties: latest match first). `name` is the name in the latest match.
 * Throws on database errors.
 */
export async function topMatchedPolicies(
  db: PrismaClient,
  projectId: string,
  range: { from: Date; to: Date; limit: number },
): Promise<TopPolicyRow[]> {
  // Grouped by (policy, decision) in SQL (a handful of rows per policy), ranked here. The planner
  // guesses 100 elements per JSON array, so it would JIT-compile the query (~250 ms of a ~300 ms
  // query at 40k evaluations): JIT is switched off for this transaction (docs/decisions.md).
  const rows = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SET LOCAL jit = off`;
    return tx.$queryRaw<{ policy_id: string; decision: string; name: string; n: bigint; last: Date }[]>`
    SELECT x->>'policyId' AS policy_id, x->>'decision' AS decision, count(*) AS n, max(g.evaluated_at) AS last,
           (array_agg(x->>'name' ORDER BY g.evaluated_at DESC))[1] AS name
      FROM guardrail_evaluations g CROSS JOIN LATERAL jsonb_array_elements(
             CASE WHEN jsonb_typeof(g.matched_guardrails) = 'array' THEN g.matched_guardrails ELSE '[]'::jsonb END) x
     WHERE g.project_id = ${projectId}::uuid AND NOT g.dry_run
       AND g.evaluated_at >= ${range.from}::timestamptz AND g.evaluated_at < ${range.to}::timestamptz
     GROUP BY 1, 2`;
  });
  const byPolicy = new Map<string, TopPolicyRow>();
  for (const r of rows) {
    if (!r.policy_id) continue;
    const last = new Date(r.last);
    let p = byPolicy.get(r.policy_id);
    if (!p) {
      p = {
        policyId: r.policy_id,
        name: r.name,
        matches: 0,
        decisions: zeroDecisions(),
        lastMatchedAt: last,
      };
      byPolicy.set(r.policy_id, p);
    }
    const n = Number(r.n);
    p.matches += n;
    addCount(p.decisions, r.decision, n);
    if (last > p.lastMatchedAt) {
      p.lastMatchedAt = last;
      p.name = r.name;
    }
  }
  return [...byPolicy.values()]
    .sort((a, b) => b.matches - a.matches || b.lastMatchedAt.getTime() - a.lastMatchedAt.getTime())
    .slice(0, range.limit);
}
