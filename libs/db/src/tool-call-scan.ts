import { Prisma, type PrismaClient } from './client';

/** A stored tool call (`agent.tool.started`) as a backtest evaluates it. */
export interface StoredToolCall {
  id: string;
  sessionId: string;
  runId: string | null;
  agentId: string;
  /** The agent's key (agents table); null if the agent row is missing. */
  agentKey: string | null;
  time: Date;
  toolName: string | null;
  arguments: Record<string, unknown> | null;
  actionType: string | null;
  riskLevel: string | null;
  resource: { type?: string; id?: string; environment?: string } | null;
  /**
   * The provenance of the call's stored evaluation (same project, session and `toolCallId`;
   * docs/provenance.md), null when the call was not evaluated or its request carried none. As
   * stored, so any shape: the policy engine reads it defensively.
   */
  provenance: Record<string, unknown> | null;
}

/** Window and paging of {@link scanToolCalls}. */
export interface ToolCallScan {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  /** Rows per keyset page (default 5,000). */
  pageSize?: number;
}

/**
 * The started event's `toolCallId` as a uuid (the ingest validated it as a UUIDv7), NULL for
 * anything else, so an odd stored value never fails the scan. Found through the
 * `(project_id, tool_call_id)` index of `guardrail_evaluations`.
 */
const TOOL_CALL_ID = Prisma.sql`(CASE WHEN p.data->>'toolCallId' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
  THEN (p.data->>'toolCallId')::uuid END)`;

const byTimeThenId = (a: StoredToolCall, b: StoredToolCall) =>
  a.time.getTime() - b.time.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Streams a project's `agent.tool.started` events in `[from, to)` in pages, oldest first by
 * `(time, id)`. Memory stays at one page, no OFFSET is ever scanned, and the caller may stop early
 * (`break`). Only the fields a policy reads are fetched, with the provenance of the call's stored
 * evaluation (one index lookup per call) so data-flow policies can be re-evaluated over history.
 *
 * Each page is one keyset query ordered by `time` alone, which the `(project_id, type, time)` index
 * returns presorted: no sort, whatever the table's statistics say (ordering by `(time, id)` makes
 * PostgreSQL sort, and with stale statistics, e.g. right after a bulk load, it sorted every
 * remaining row for every page). A page therefore ends on a whole millisecond: the rows of its
 * last millisecond are left to the next page, which starts at that millisecond. Within a page, rows
 * are ordered by `(time, id)` here. A millisecond holding a whole page or more is read in one query.
 */
export async function* scanToolCalls(
  db: PrismaClient,
  projectId: string,
  scan: ToolCallScan,
): AsyncGenerator<StoredToolCall[]> {
  const pageSize = scan.pageSize ?? 5_000;
  const read = (lower: Prisma.Sql, limit: Prisma.Sql) => db.$queryRaw<StoredToolCall[]>`
      SELECT p.id::text AS "id", p.session_id::text AS "sessionId", p.run_id::text AS "runId",
             p.agent_id::text AS "agentId", a.key AS "agentKey", p.time AS "time",
             p.data->>'toolName' AS "toolName", p.data->'arguments' AS "arguments",
             p.data->>'actionType' AS "actionType", p.data->>'riskLevel' AS "riskLevel",
             p.data->'resource' AS "resource", g.provenance AS "provenance"
      FROM (SELECT e.id, e.session_id, e.run_id, e.agent_id, e.time, e.data FROM events e
            WHERE e.project_id = ${projectId}::uuid AND e.type = 'agent.tool.started'
              AND ${lower} AND e.time < ${scan.to}::timestamptz
            ORDER BY e.time ${limit}) p
      LEFT JOIN agents a ON a.id = p.agent_id
      LEFT JOIN LATERAL (
        SELECT v.provenance FROM guardrail_evaluations v
        WHERE v.project_id = ${projectId}::uuid AND v.session_id = p.session_id
          AND v.tool_call_id = ${TOOL_CALL_ID} AND v.provenance IS NOT NULL
        ORDER BY v.dry_run, v.evaluated_at DESC LIMIT 1) g ON true`;
  let lower = Prisma.sql`e.time >= ${scan.from}::timestamptz`;
  for (;;) {
    const rows = await read(lower, Prisma.sql`LIMIT ${pageSize}`);
    if (rows.length < pageSize) {
      if (rows.length > 0) yield rows.sort(byTimeThenId);
      return;
    }
    const last = rows[rows.length - 1]!.time;
    const whole = rows.filter((r) => r.time.getTime() < last.getTime());
    if (whole.length > 0) {
      yield whole.sort(byTimeThenId);
      lower = Prisma.sql`e.time >= ${last}::timestamptz`;
    } else {
      yield (await read(Prisma.sql`e.time = ${last}::timestamptz`, Prisma.empty)).sort(byTimeThenId);
      lower = Prisma.sql`e.time > ${last}::timestamptz`;
    }
  }
}
