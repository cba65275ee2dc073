import { Prisma, type PrismaClient } from './client';
import { zeroDecisions, type DecisionCountsRow } from './guardrail-stats';

/*
 * The read queries of the agent version comparison (docs/architecture.md#comparing-versions). Every
 * figure of a version is over its sessions that started in the window `[from, to)`, found by the
 * `sessions (project_id, agent_version_id, started_at)` index.
 */

/** The sessions compared: one agent's versions, sessions started in `[from, to)`. */
export interface ComparisonScope {
  projectId: string;
  agentId: string;
  versionIds: readonly string[];
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

/** What one version's sessions did, as summed counts. */
export interface VersionActivityRow {
  versionId: string;
  sessions: number;
  /** `agent.tool.started` events of the sessions. */
  toolCalls: number;
  /** `agent.tool.failed` events of the sessions. */
  toolFailures: number;
  /** Sessions with at least one `block` policy decision (dry runs excluded). */
  blockedSessions: number;
  /** Guardrail evaluations of the sessions by policy decision (dry runs excluded). */
  decisions: DecisionCountsRow;
  /** Approvals of the sessions. */
  approvals: number;
  /** Approvals with a `decidedAt`. */
  approvalsDecided: number;
  /** Median `decidedAt − createdAt` of the decided approvals, ms; null when none was decided. */
  approvalWaitMedianMs: number | null;
}

/** One numeric or boolean score name of one version, over sessions (latest value per session). */
export interface VersionScoreRow {
  versionId: string;
  name: string;
  dataType: 'numeric' | 'boolean';
  /** Sessions with a score of this name. */
  n: number;
  mean: number;
  /** Sessions whose value is `true` (boolean) or > 0 (numeric). */
  successes: number;
}

const inWindow = (s: ComparisonScope) => Prisma.sql`s.project_id = ${s.projectId}::uuid
  AND s.agent_id = ${s.agentId}::uuid AND s.agent_version_id = ANY(${[...s.versionIds]}::uuid[])
  AND s.started_at >= ${s.from} AND s.started_at < ${s.to}`;

/**
 * The ids of the agent's versions among `versionIds` (those of another agent or project are left
 * out). Throws on database errors.
 */
export async function versionsOfAgent(
  db: PrismaClient,
  projectId: string,
  agentId: string,
  versionIds: readonly string[],
): Promise<Array<{ id: string; version: string }>> {
  return db.agentVersion.findMany({
    where: { projectId, agentId, id: { in: [...versionIds] } },
    select: { id: true, version: true },
  });
}

/**
 * Sessions, tool calls and failures, blocked sessions, decisions by kind and approvals with their
 * median wait, per version of the scope (a version without sessions gets zeros). Three aggregate
 * queries run concurrently. Throws on database errors.
 */
export async function versionActivity(
  db: PrismaClient,
  scope: ComparisonScope,
): Promise<VersionActivityRow[]> {
  const w = inWindow(scope);
  const [sessions, decisions, approvals] = await Promise.all([
    db.$queryRaw<{ v: string; n: bigint; calls: bigint; failures: bigint; blocked: bigint }[]>`
      SELECT s.agent_version_id AS v, count(*) AS n, coalesce(sum(e.calls), 0)::bigint AS calls,
             coalesce(sum(e.failures), 0)::bigint AS failures, count(*) FILTER (WHERE g.blocks > 0) AS blocked
        FROM sessions s
        LEFT JOIN LATERAL (
          SELECT count(*) FILTER (WHERE e.type = 'agent.tool.started') AS calls,
                 count(*) FILTER (WHERE e.type = 'agent.tool.failed') AS failures
            FROM events e WHERE e.session_id = s.id AND e.project_id = s.project_id) e ON true
        LEFT JOIN LATERAL (
          SELECT count(*) AS blocks FROM guardrail_evaluations g
           WHERE g.session_id = s.id AND g.project_id = s.project_id AND NOT g.dry_run
             AND g.policy_decision = 'block') g ON true
       WHERE ${w}
       GROUP BY s.agent_version_id`,
    db.$queryRaw<{ v: string; d: string; n: bigint }[]>`
      SELECT s.agent_version_id AS v, g.policy_decision AS d, count(*) AS n
        FROM sessions s JOIN guardrail_evaluations g ON g.session_id = s.id AND g.project_id = s.project_id
       WHERE ${w} AND NOT g.dry_run
       GROUP BY s.agent_version_id, g.policy_decision`,
    db.$queryRaw<{ v: string; n: bigint; decided: bigint; wait: number | null }[]>`
      SELECT s.agent_version_id AS v, count(*) AS n, count(a.decided_at) AS decided,
             percentile_cont(0.5) WITHIN GROUP (
               ORDER BY extract(epoch FROM a.decided_at - a.created_at) * 1000) AS wait
        FROM sessions s JOIN approvals a ON a.session_id = s.id AND a.project_id = s.project_id
       WHERE ${w}
       GROUP BY s.agent_version_id`,
  ]);
  return scope.versionIds.map((versionId) => {
    const s = sessions.find((r) => r.v === versionId);
    const a = approvals.find((r) => r.v === versionId);
    const counts = zeroDecisions();
    for (const d of decisions)
      if (d.v === versionId && d.d in counts) counts[d.d as keyof DecisionCountsRow] += Number(d.n);
    return {
      versionId,
      sessions: Number(s?.n ?? 0),
      toolCalls: Number(s?.calls ?? 0),
      toolFailures: Number(s?.failures ?? 0),
      blockedSessions: Number(s?.blocked ?? 0),
      decisions: counts,
      approvals: Number(a?.n ?? 0),
      approvalsDecided: Number(a?.decided ?? 0),
      approvalWaitMedianMs: a?.wait == null ? null : Math.round(Number(a.wait)),
    };
  });
}

/** The latest numeric or boolean score per (session, name) of the scope's sessions. */
const latestScores = (scope: ComparisonScope) => Prisma.sql`
  SELECT DISTINCT ON (c.session_id, c.name) s.agent_version_id AS v, c.session_id, c.name,
         c.data_type, c.numeric_value, s.started_at
    FROM sessions s JOIN scores c ON c.session_id = s.id AND c.project_id = s.project_id
   WHERE ${inWindow(scope)} AND c.data_type IN ('numeric', 'boolean') AND c.numeric_value IS NOT NULL
   ORDER BY c.session_id, c.name, c.time DESC, c.id DESC`;

/**
 * Per version and numeric/boolean score name: sessions scored, the mean of their latest values and
 * how many are true (> 0). A name used with both types is reported once per type. Throws on
 * database errors.
 */
export async function versionScores(db: PrismaClient, scope: ComparisonScope): Promise<VersionScoreRow[]> {
  const rows = await db.$queryRaw<
    { v: string; name: string; t: string; n: bigint; mean: number; ok: bigint }[]
  >`
    SELECT l.v, l.name, l.data_type AS t, count(*) AS n, avg(l.numeric_value)::float8 AS mean,
           count(*) FILTER (WHERE l.numeric_value > 0) AS ok
      FROM (${latestScores(scope)}) l
     GROUP BY l.v, l.name, l.data_type
     ORDER BY l.name, l.data_type`;
  return rows.map((r) => ({
    versionId: r.v,
    name: r.name,
    dataType: r.t as 'numeric' | 'boolean',
    n: Number(r.n),
    mean: Number(r.mean),
    successes: Number(r.ok),
  }));
}

/** Which sessions {@link exampleSessions} looks for. */
export type ExampleOutcome =
  { kind: 'score'; name: string; success: boolean } | { kind: 'blocked'; blocked: boolean };

/**
 * Up to `limit` sessions of one version of the scope (newest first) with the given outcome: a
 * boolean score's latest value true/false, or with/without a `block` decision (dry runs excluded).
 * Throws on database errors.
 */
export async function exampleSessions(
  db: PrismaClient,
  scope: ComparisonScope,
  versionId: string,
  outcome: ExampleOutcome,
  limit: number,
): Promise<string[]> {
  const one = { ...scope, versionIds: [versionId] };
  const rows =
    outcome.kind === 'score'
      ? await db.$queryRaw<{ id: string }[]>`
          SELECT l.session_id AS id FROM (${latestScores(one)}) l
           WHERE l.name = ${outcome.name} AND l.data_type = 'boolean'
             AND (l.numeric_value > 0) = ${outcome.success}
           ORDER BY l.started_at DESC, l.session_id LIMIT ${limit}`
      : await db.$queryRaw<{ id: string }[]>`
          SELECT s.id FROM sessions s
           WHERE ${inWindow(one)} AND EXISTS (
             SELECT 1 FROM guardrail_evaluations g
              WHERE g.session_id = s.id AND g.project_id = s.project_id AND NOT g.dry_run
                AND g.policy_decision = 'block') = ${outcome.blocked}
           ORDER BY s.started_at DESC, s.id LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** The LLM calls of one version's sessions, summed (docs/architecture.md#llm-calls). */
export interface VersionLlmRow {
  versionId: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum of the known costs, USD; null when no call has one. */
  costUsd: number | null;
  /** Calls whose cost is unknown. */
  unpricedCalls: number;
}

/**
 * LLM calls, tokens and cost of each version's sessions of the scope (by the session's version;
 * a version whose sessions made no call is absent). Throws on database errors.
 */
export async function versionLlm(db: PrismaClient, scope: ComparisonScope): Promise<VersionLlmRow[]> {
  const rows = await db.$queryRaw<
    { v: string; calls: bigint; input: bigint; output: bigint; cost: number | null; unpriced: bigint }[]
  >`
    SELECT s.agent_version_id::text AS v, count(*) AS calls,
           coalesce(sum(c.input_tokens), 0)::bigint AS input, coalesce(sum(c.output_tokens), 0)::bigint AS output,
           sum(c.cost_usd) AS cost, count(*) FILTER (WHERE c.cost_usd IS NULL) AS unpriced
      FROM sessions s JOIN llm_calls c ON c.session_id = s.id AND c.project_id = s.project_id
     WHERE ${inWindow(scope)}
     GROUP BY s.agent_version_id`;
  return rows.map((r) => ({
    versionId: r.v,
    calls: Number(r.calls),
    inputTokens: Number(r.input),
    outputTokens: Number(r.output),
    costUsd: r.cost === null ? null : Number(r.cost),
    unpricedCalls: Number(r.unpriced),
  }));
}
