import { Prisma, type PrismaClient } from './client';
import { recordAudit, type Actor } from './audit';

/**
 * Deleting telemetry (docs/decisions.md "Deleting telemetry"): a session, an agent with every
 * version's data, a project's telemetry. Every statement keeps to one project (`project_id = $1`).
 * Tables are emptied children first, so no foreign key trips. Retention (./retention.ts) deletes
 * through {@link deleteSessionsInTx} too.
 */

/**
 * Every table that holds a session's rows, in deletion order (children before parents). A test
 * (test/deletion.int.test.ts) checks that each table with a `session_id` column is listed.
 */
export const SESSION_TABLES = [
  'recommendations',
  'session_intelligence',
  'approval_transitions',
  'approvals',
  'scores',
  'llm_calls',
  'otlp_sequence_blocks',
  'guardrail_evaluations',
  'events',
  'runs',
  'sessions',
] as const;
export type SessionTable = (typeof SESSION_TABLES)[number];

/** Rows deleted per table. */
export type DeletedRows = Record<string, number>;

/** Sessions deleted per transaction by {@link deleteProjectTelemetry} (and by retention): bounds each lock. */
export const DELETE_BATCH_SESSIONS = 200;

/** Adds `b` into `a` (per table). */
export function addCounts(a: DeletedRows, b: DeletedRows): DeletedRows {
  for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + v;
  return a;
}

/** Total rows of a count record. */
export function totalRows(c: DeletedRows): number {
  return Object.values(c).reduce((s, n) => s + n, 0);
}

/**
 * Deletes, inside the caller's transaction, every row of the given sessions of `projectId` from
 * {@link SESSION_TABLES}: a session vanishes whole with its runs, events, evaluations, approvals and
 * their transitions, scores, LLM calls, OTLP sequence blocks, intelligence versions and recommendations. Rows that name a session
 * id without a `sessions` row (an evaluation stored before the session's first event) go too.
 * Returns rows deleted per table.
 */
export async function deleteSessionsInTx(
  tx: Prisma.TransactionClient,
  projectId: string,
  sessionIds: readonly string[],
): Promise<DeletedRows> {
  const out: DeletedRows = Object.fromEntries(SESSION_TABLES.map((t) => [t, 0]));
  if (sessionIds.length === 0) return out;
  const p = Prisma.sql`${projectId}::uuid`;
  const ids = Prisma.sql`${[...sessionIds]}::uuid[]`;
  // Lock the sessions first: a concurrent write of a row that references one (a run, a score, an
  // intelligence version) waits for this transaction and then fails its foreign key, instead of
  // this DELETE failing on a row committed in between.
  await tx.$queryRaw`SELECT id FROM sessions WHERE project_id = ${p} AND id = ANY(${ids}) ORDER BY id FOR UPDATE`;
  out.recommendations = await tx.$executeRaw`
    DELETE FROM recommendations WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.session_intelligence = await tx.$executeRaw`
    DELETE FROM session_intelligence WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.approval_transitions = await tx.$executeRaw`
    DELETE FROM approval_transitions t WHERE t.project_id = ${p}
       AND (t.session_id = ANY(${ids})
            OR t.approval_id IN (SELECT a.id FROM approvals a WHERE a.project_id = ${p} AND a.session_id = ANY(${ids})))`;
  out.approvals = await tx.$executeRaw`
    DELETE FROM approvals WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.scores = await tx.$executeRaw`DELETE FROM scores WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.llm_calls =
    await tx.$executeRaw`DELETE FROM llm_calls WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.otlp_sequence_blocks = await tx.$executeRaw`
    DELETE FROM otlp_sequence_blocks WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.guardrail_evaluations = await tx.$executeRaw`
    DELETE FROM guardrail_evaluations WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.events = await tx.$executeRaw`DELETE FROM events WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.runs = await tx.$executeRaw`DELETE FROM runs WHERE project_id = ${p} AND session_id = ANY(${ids})`;
  out.sessions = await tx.$executeRaw`DELETE FROM sessions WHERE project_id = ${p} AND id = ANY(${ids})`;
  return out;
}

/** Ids of the session's pending approvals (to cancel before a deletion). */
export async function pendingApprovalIdsOfSessions(
  db: PrismaClient,
  projectId: string,
  sessionIds: readonly string[],
): Promise<string[]> {
  if (sessionIds.length === 0) return [];
  const rows = await db.approval.findMany({
    where: { projectId, sessionId: { in: [...sessionIds] }, status: 'pending' },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** Ids of an agent's pending approvals. */
export async function pendingApprovalIdsOfAgent(
  db: PrismaClient,
  projectId: string,
  agentId: string,
): Promise<string[]> {
  const rows = await db.approval.findMany({
    where: { projectId, agentId, status: 'pending' },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** Ids of the project's pending approvals. */
export async function pendingApprovalIdsOfProject(db: PrismaClient, projectId: string): Promise<string[]> {
  const rows = await db.approval.findMany({ where: { projectId, status: 'pending' }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** Ids of every session of an agent (all its versions) in the project. */
export async function sessionIdsOfAgent(
  db: PrismaClient,
  projectId: string,
  agentId: string,
): Promise<string[]> {
  const rows = await db.session.findMany({ where: { projectId, agentId }, select: { id: true } });
  return rows.map((r) => r.id);
}

/**
 * Deletes one session and all its rows (see {@link deleteSessionsInTx}) in one transaction, with a
 * `session.deleted` audit record (actor, counts; never the deleted content) in the same
 * transaction. Returns the counts, or null when the project held no row of that session.
 */
export async function deleteSession(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  actor: Actor,
): Promise<DeletedRows | null> {
  return db.$transaction(
    async (tx) => {
      const deleted = await deleteSessionsInTx(tx, projectId, [sessionId]);
      if (totalRows(deleted) === 0) return null;
      await recordAudit(tx, projectId, actor, [
        { action: 'session.deleted', entityType: 'session', entityId: sessionId, after: { deleted } },
      ]);
      return deleted;
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
}

/**
 * Deletes an agent with the data of every version in one transaction: its sessions (whole, see
 * {@link deleteSessionsInTx}), then whatever else names the agent (evaluations and approvals without
 * a session, scores, events, runs), its versions and the agent itself; audited as `agent.deleted`
 * (key and counts). Returns the counts, or null when the agent is not in the project.
 */
export async function deleteAgent(
  db: PrismaClient,
  projectId: string,
  agentId: string,
  actor: Actor,
): Promise<DeletedRows | null> {
  return db.$transaction(
    async (tx) => {
      const agent = await tx.agent.findFirst({ where: { id: agentId, projectId }, select: { key: true } });
      if (!agent) return null;
      const sessions = await tx.session.findMany({ where: { projectId, agentId }, select: { id: true } });
      const deleted = await deleteSessionsInTx(
        tx,
        projectId,
        sessions.map((s) => s.id),
      );
      const p = Prisma.sql`${projectId}::uuid`;
      const a = Prisma.sql`${agentId}::uuid`;
      addCounts(deleted, {
        approval_transitions: await tx.$executeRaw`
          DELETE FROM approval_transitions t WHERE t.project_id = ${p}
             AND t.approval_id IN (SELECT x.id FROM approvals x WHERE x.project_id = ${p} AND x.agent_id = ${a})`,
        approvals: await tx.$executeRaw`DELETE FROM approvals WHERE project_id = ${p} AND agent_id = ${a}`,
        scores: await tx.$executeRaw`DELETE FROM scores WHERE project_id = ${p} AND agent_id = ${a}`,
        llm_calls: await tx.$executeRaw`DELETE FROM llm_calls WHERE project_id = ${p} AND agent_id = ${a}`,
        guardrail_evaluations: await tx.$executeRaw`
          DELETE FROM guardrail_evaluations WHERE project_id = ${p} AND agent_id = ${a}`,
        events: await tx.$executeRaw`DELETE FROM events WHERE project_id = ${p} AND agent_id = ${a}`,
        runs: await tx.$executeRaw`DELETE FROM runs WHERE project_id = ${p} AND agent_id = ${a}`,
      });
      deleted.agent_versions = await tx.$executeRaw`
        DELETE FROM agent_versions WHERE project_id = ${p} AND agent_id = ${a}`;
      deleted.agents = await tx.$executeRaw`DELETE FROM agents WHERE project_id = ${p} AND id = ${a}`;
      await recordAudit(tx, projectId, actor, [
        {
          action: 'agent.deleted',
          entityType: 'agent',
          entityId: agentId,
          after: { key: agent.key, deleted },
        },
      ]);
      return deleted;
    },
    { maxWait: 10_000, timeout: 300_000 },
  );
}

/**
 * Deletes a project's telemetry (every row of {@link SESSION_TABLES}; agents, policies, keys,
 * members and the audit log stay) in bounded transactions: whole sessions, `batchSize` at a time,
 * then the rows no session holds (an evaluation or approval without a session) in batches of
 * 5 000 rows per table. Each transaction is short, so ingestion and reads go on. Idempotent and
 * resumable: an interrupted call leaves whole sessions deleted or kept, and calling again finishes
 * the job. Audited once at the end as `project.data.deleted` with the counts. `onBatch` is called
 * with the session ids of each committed batch (to drop their queued jobs).
 */
export async function deleteProjectTelemetry(
  db: PrismaClient,
  projectId: string,
  actor: Actor,
  options: { batchSize?: number; onBatch?: (sessionIds: string[]) => Promise<void> } = {},
): Promise<{ deleted: DeletedRows; batches: number }> {
  const batchSize = options.batchSize ?? DELETE_BATCH_SESSIONS;
  const deleted: DeletedRows = Object.fromEntries(SESSION_TABLES.map((t) => [t, 0]));
  let batches = 0;
  for (;;) {
    const ids = await db.$transaction(
      async (tx) => {
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM sessions WHERE project_id = ${projectId}::uuid
           ORDER BY id LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`;
        const batch = rows.map((r) => r.id);
        addCounts(deleted, await deleteSessionsInTx(tx, projectId, batch));
        return batch;
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
    if (ids.length === 0) break;
    batches++;
    await options.onBatch?.(ids);
  }
  for (const table of SESSION_TABLES) {
    for (;;) {
      // Table names come from the constant list above, never from input.
      const n = await db.$executeRawUnsafe(
        `DELETE FROM "${table}" WHERE ctid = ANY(ARRAY(SELECT ctid FROM "${table}" WHERE project_id = $1::uuid LIMIT 5000))`,
        projectId,
      );
      deleted[table] = (deleted[table] ?? 0) + n;
      if (n === 0) break;
      batches++;
    }
  }
  await recordAudit(db, projectId, actor, [
    { action: 'project.data.deleted', entityType: 'project', entityId: projectId, after: { deleted } },
  ]);
  return { deleted, batches };
}
