/**
 * Normalises the stats answers for the charts. `GET /v1/stats/decisions` gives decision counts per
 * time bucket, either one row per bucket (`{ time, allow, warn, … }` or `{ time, counts: {…} }`) or
 * one row per (bucket, decision) (`{ time, decision, count }`); `GET /v1/stats/top-policies` gives
 * `{ policyId, name, count }` rows. Pure functions (unit tested).
 */

/** Decision counts of one time bucket. */
export interface DecisionBucket {
  time: string;
  allow: number;
  warn: number;
  require_approval: number;
  block: number;
}

/** One policy with how often it matched. */
export interface TopPolicy {
  policyId: string;
  name: string;
  count: number;
  decision?: string;
}

type Row = Record<string, unknown>;
const DECISIONS = ['allow', 'warn', 'require_approval', 'block'] as const;

function rowsOf(body: unknown): Row[] {
  if (Array.isArray(body)) return body as Row[];
  const b = (body ?? {}) as Row;
  for (const k of ['items', 'buckets', 'series', 'policies', 'data'])
    if (Array.isArray(b[k])) return b[k] as Row[];
  return [];
}

const timeOf = (r: Row): string => String(r.time ?? r.bucket ?? r.start ?? r.from ?? r.t ?? '');
const n = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) || 0 : 0);

/** Buckets oldest first, every decision present (0 when absent). */
export function decisionBuckets(body: unknown): DecisionBucket[] {
  const byTime = new Map<string, DecisionBucket>();
  for (const r of rowsOf(body)) {
    const time = timeOf(r);
    if (!time) continue;
    let b = byTime.get(time);
    if (!b) {
      b = { time, allow: 0, warn: 0, require_approval: 0, block: 0 };
      byTime.set(time, b);
    }
    if (typeof r.decision === 'string') {
      const d = r.decision as (typeof DECISIONS)[number];
      if (d in b) b[d] += n(r.count ?? r.n ?? r.value);
      continue;
    }
    const counts = (r.counts ?? r.decisions ?? r) as Row;
    for (const d of DECISIONS) b[d] += n(counts[d]);
  }
  return [...byTime.values()].sort((a, b) => a.time.localeCompare(b.time));
}

/** Policies most matched first. */
export function topPolicies(body: unknown): TopPolicy[] {
  return rowsOf(body)
    .map((r) => ({
      policyId: String(r.policyId ?? r.id ?? ''),
      name: String(r.name ?? r.policyName ?? r.policyId ?? ''),
      count: n(r.count ?? r.matches ?? r.matched ?? r.n),
      decision: typeof r.decision === 'string' ? r.decision : undefined,
    }))
    .sort((a, b) => b.count - a.count);
}
