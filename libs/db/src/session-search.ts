import type { Session } from './generated/prisma/client';
import { Prisma, type PrismaClient } from './client';

/**
 * The dashboard's sessions list (issue 6): filters combined with AND, newest first by
 * `(started_at, id)`, keyset paged. Fast at 100k+ sessions because every filter is either an
 * index column of `sessions` or an `IN (…)` over a small, indexed set (docs/decisions.md
 * "Sessions list filters"):
 *
 * - agent / version / time range / status: `sessions (project_id, agent_id | agent_version_id, started_at)`;
 * - `q`: `input_summary ILIKE '%q%'` served by the pg_trgm GIN index `sessions_input_summary_trgm_idx`;
 * - blocks: enforce-mode `block` evaluations (`guardrail_evaluations (session_id)`) and client
 *   `agent.guardrail.evaluated` events with outcome `blocked` (`events (project_id, type, time)`);
 * - pending approvals: `approvals (project_id, status, created_at)` / `(session_id, status)`.
 */
export interface SessionSearchFilter {
  agentId?: string;
  agentVersionId?: string;
  /** `started_at >= from`. */
  from?: Date;
  /** `started_at < to`. */
  to?: Date;
  /** Any of these statuses (`active`, `completed`, `failed`, `cancelled`). */
  status?: string[];
  /** true: at least one block; false: none. */
  hasBlocks?: boolean;
  /** true: at least one pending approval; false: none. */
  hasPendingApprovals?: boolean;
  /** Case-insensitive substring of `input_summary`; `%`, `_` and `\` match themselves. */
  q?: string;
}

/** Keyset position: the last row of the previous page. */
export interface SessionSearchAfter {
  startedAt: Date;
  id: string;
}

/** A session with its guardrail figures. */
export type SessionSearchRow = Session & { blocks: number; pendingApprovals: number };

/** `%`, `_` and `\` escaped for `LIKE … ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Session ids of the project with a block (enforce-mode `block` evaluation or client event outcome `blocked`). */
function blockedSessionIds(projectId: string, since?: Date): Prisma.Sql {
  // A block happens during its session, so it is never older than the session's start: `since`
  // (the `from` filter) bounds both scans.
  const gSince = since ? Prisma.sql`AND g.evaluated_at >= ${since}::timestamptz` : Prisma.empty;
  const eSince = since ? Prisma.sql`AND e.time >= ${since}::timestamptz` : Prisma.empty;
  return Prisma.sql`
    SELECT g.session_id FROM guardrail_evaluations g
     WHERE g.project_id = ${projectId}::uuid AND g.policy_decision = 'block' AND g.mode = 'enforce'
       AND NOT g.dry_run AND g.session_id IS NOT NULL ${gSince}
    UNION ALL
    SELECT e.session_id FROM events e
     WHERE e.project_id = ${projectId}::uuid AND e.type = 'agent.guardrail.evaluated'
       AND e.data->>'outcome' = 'blocked' ${eSince}`;
}

function pendingSessionIds(projectId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT a.session_id FROM approvals a
     WHERE a.project_id = ${projectId}::uuid AND a.status = 'pending' AND a.session_id IS NOT NULL`;
}

function whereClause(projectId: string, f: SessionSearchFilter, after?: SessionSearchAfter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`s.project_id = ${projectId}::uuid`];
  if (f.agentId) parts.push(Prisma.sql`s.agent_id = ${f.agentId}::uuid`);
  if (f.agentVersionId) parts.push(Prisma.sql`s.agent_version_id = ${f.agentVersionId}::uuid`);
  if (f.from) parts.push(Prisma.sql`s.started_at >= ${f.from}::timestamptz`);
  if (f.to) parts.push(Prisma.sql`s.started_at < ${f.to}::timestamptz`);
  if (f.status?.length) parts.push(Prisma.sql`s.status = ANY(${f.status}::text[])`);
  if (f.q) parts.push(Prisma.sql`s.input_summary ILIKE ${`%${escapeLike(f.q)}%`} ESCAPE '\\'`);
  if (f.hasBlocks !== undefined) {
    const ids = blockedSessionIds(projectId, f.from);
    parts.push(f.hasBlocks ? Prisma.sql`s.id IN (${ids})` : Prisma.sql`s.id NOT IN (${ids})`);
  }
  if (f.hasPendingApprovals !== undefined) {
    const ids = pendingSessionIds(projectId);
    parts.push(f.hasPendingApprovals ? Prisma.sql`s.id IN (${ids})` : Prisma.sql`s.id NOT IN (${ids})`);
  }
  if (after)
    parts.push(Prisma.sql`(s.started_at, s.id) < (${after.startedAt}::timestamptz, ${after.id}::uuid)`);
  return Prisma.join(parts, ' AND ');
}

/**
 * One page of sessions matching `filter`, newest first (`started_at desc, id desc`), after the
 * keyset position `after`. Returns up to `take` rows (ask for `limit + 1` to learn whether more
 * follow), each with its `blocks` and `pendingApprovals` counts. Throws on database errors.
 */
export async function searchSessions(
  db: PrismaClient,
  projectId: string,
  filter: SessionSearchFilter,
  take: number,
  after?: SessionSearchAfter,
): Promise<SessionSearchRow[]> {
  const sessions = await db.$queryRaw<Session[]>`
    SELECT s.id, s.project_id AS "projectId", s.agent_id AS "agentId", s.agent_version_id AS "agentVersionId",
           s.status, s.input_summary AS "inputSummary", s.started_at AS "startedAt", s.ended_at AS "endedAt",
           s.last_event_at AS "lastEventAt", s.event_count AS "eventCount", s.max_sequence AS "maxSequence"
      FROM sessions s
     WHERE ${whereClause(projectId, filter, after)}
     ORDER BY s.started_at DESC, s.id DESC
     LIMIT ${take}`;
  if (sessions.length === 0) return [];
  const figures = await sessionFigures(
    db,
    projectId,
    sessions.map((s) => s.id),
  );
  return sessions.map((s) => ({
    ...s,
    blocks: figures.get(s.id)?.blocks ?? 0,
    pendingApprovals: figures.get(s.id)?.pending ?? 0,
  }));
}

/**
 * Blocks and pending approvals of the given sessions (absent from the map: none). A client event
 * that reports the outcome of a stored evaluation (same `evaluationId`) is the same block: blocks
 * are counted once per evaluation id (per event id when the event has none).
 */
async function sessionFigures(
  db: PrismaClient,
  projectId: string,
  ids: string[],
): Promise<Map<string, { blocks: number; pending: number }>> {
  const rows = await db.$queryRaw<{ id: string; blocks: bigint; pending: bigint }[]>`
    SELECT id, count(DISTINCT k) FILTER (WHERE kind = 'b') AS blocks, count(*) FILTER (WHERE kind = 'p') AS pending
      FROM (
        SELECT g.session_id AS id, g.id::text AS k, 'b' AS kind FROM guardrail_evaluations g
         WHERE g.session_id = ANY(${ids}::uuid[]) AND g.project_id = ${projectId}::uuid
           AND g.policy_decision = 'block' AND g.mode = 'enforce' AND NOT g.dry_run
        UNION ALL
        SELECT e.session_id, coalesce(e.data->>'evaluationId', e.id::text), 'b' FROM events e
         WHERE e.session_id = ANY(${ids}::uuid[]) AND e.project_id = ${projectId}::uuid
           AND e.type = 'agent.guardrail.evaluated' AND e.data->>'outcome' = 'blocked'
        UNION ALL
        SELECT a.session_id, a.id::text, 'p' FROM approvals a
         WHERE a.session_id = ANY(${ids}::uuid[]) AND a.project_id = ${projectId}::uuid AND a.status = 'pending'
      ) f
     GROUP BY id`;
  return new Map(rows.map((r) => [r.id, { blocks: Number(r.blocks), pending: Number(r.pending) }]));
}
