import type { RetentionRun } from '@agent-warden/contracts';
import { Prisma, type PrismaClient } from './client';
import { recordAudit, jsonColumn, type Actor } from './audit';
import { withProjectLock } from './policy-tx';
import {
  DELETE_BATCH_SESSIONS,
  SESSION_TABLES,
  addCounts,
  deleteSessionsInTx,
  totalRows,
  type DeletedRows,
} from './telemetry-deletion';
import { dropExpiredEventPartitions } from './event-partitions';

/**
 * Per-project retention (docs/decisions.md "Retention by whole sessions"): a project's
 * `retention_days`, and the job that deletes the sessions whose last event is older than that window,
 * one bounded transaction per batch, recording its last run on the project row.
 */

/** Actor of the audit records the retention job writes. */
export const RETENTION_ACTOR: Actor = { actor: 'system:retention', keyId: null };

/** A run that has been `running` for longer than this is taken over by the next one (a crashed process), ms. */
export const RETENTION_LEASE_MS = 60 * 60 * 1000;

/** A project's retention setting and its last run. */
export interface RetentionState {
  /** Days of telemetry kept; null: forever. */
  retentionDays: number | null;
  lastRun: RetentionRun | null;
}

/** The retention state of a project, or null when it does not exist. */
export async function getRetention(db: PrismaClient, projectId: string): Promise<RetentionState | null> {
  const p = await db.project.findUnique({
    where: { id: projectId },
    select: { retentionDays: true, retentionLastRun: true },
  });
  if (!p) return null;
  return { retentionDays: p.retentionDays, lastRun: (p.retentionLastRun as RetentionRun | null) ?? null };
}

/**
 * Sets a project's retention window (null: keep forever), serialised with its other settings
 * writes and audited as `project.settings.updated` (before/after `retentionDays`) in the same
 * transaction; no write and no record when unchanged. Returns the value and whether it changed.
 */
export async function setRetentionDays(
  db: PrismaClient,
  projectId: string,
  actor: Actor,
  retentionDays: number | null,
): Promise<{ retentionDays: number | null; changed: boolean }> {
  return withProjectLock(db, projectId, async (tx) => {
    const before = await tx.project.findUniqueOrThrow({
      where: { id: projectId },
      select: { retentionDays: true },
    });
    if (before.retentionDays === retentionDays) return { retentionDays, changed: false };
    await tx.project.update({ where: { id: projectId }, data: { retentionDays } });
    await recordAudit(tx, projectId, actor, [
      {
        action: 'project.settings.updated',
        entityType: 'project',
        entityId: projectId,
        before: { retentionDays: before.retentionDays },
        after: { retentionDays },
      },
    ]);
    return { retentionDays, changed: true };
  });
}

/** Ids of the projects that have a retention window. */
export async function projectsWithRetention(db: PrismaClient): Promise<string[]> {
  const rows = await db.project.findMany({
    where: { retentionDays: { not: null } },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return rows.map((r) => r.id);
}

/** Why {@link runRetention} did not run. */
export type RetentionSkip = 'no_retention' | 'running_elsewhere' | 'no_project';

/**
 * Runs retention on one project: takes the project's run lease (a `running` last run younger
 * than {@link RETENTION_LEASE_MS} means another process is at it: returns `running_elsewhere`),
 * then drops the week partitions of events that no project keeps anything in
 * ({@link dropExpiredEventPartitions}, counted in `partitionsDropped`), then deletes, `batchSize`
 * sessions per transaction, every session whose `last_event_at` is before
 * now − `retention_days` (rows locked `FOR UPDATE SKIP LOCKED`, so a session being written to is
 * left for the next run), then guardrail evaluations and decided approvals that belong to no
 * session and are older than the cutoff. Records the run (`succeeded` or `failed` with its error)
 * on the project, and one `telemetry.retention.deleted` audit record when rows were deleted.
 * @param now the clock (tests); default the current time
 * @returns the finished run, or why it did not run
 */
export async function runRetention(
  db: PrismaClient,
  projectId: string,
  options: { trigger: RetentionRun['trigger']; batchSize?: number; now?: Date },
): Promise<{ run: RetentionRun } | { skipped: RetentionSkip }> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? DELETE_BATCH_SESSIONS;
  const project = await db.project.findUnique({ where: { id: projectId }, select: { retentionDays: true } });
  if (!project) return { skipped: 'no_project' };
  if (project.retentionDays === null) return { skipped: 'no_retention' };
  const cutoff = new Date(now.getTime() - project.retentionDays * 86_400_000);
  const run: RetentionRun = {
    status: 'running',
    trigger: options.trigger,
    startedAt: now.toISOString(),
    finishedAt: null,
    cutoff: cutoff.toISOString(),
    retentionDays: project.retentionDays,
    batches: 0,
    sessions: 0,
    deleted: Object.fromEntries(SESSION_TABLES.map((t) => [t, 0])),
    partitionsDropped: 0,
  };
  const leaseBefore = new Date(now.getTime() - RETENTION_LEASE_MS);
  const claimed = await db.$executeRaw`
    UPDATE projects SET retention_last_run = ${JSON.stringify(run)}::jsonb
     WHERE id = ${projectId}::uuid AND retention_days IS NOT NULL
       AND (retention_last_run IS NULL OR retention_last_run->>'status' <> 'running'
            OR (retention_last_run->>'startedAt')::timestamptz < ${leaseBefore}::timestamptz)`;
  if (claimed === 0) return { skipped: 'running_elsewhere' };
  try {
    // Fast path first: whole week partitions of events that no project keeps anything in; the
    // per-session delete below then finds those sessions' events already gone.
    run.partitionsDropped = (await dropExpiredEventPartitions(db, now)).length;
    for (;;) {
      const n = await db.$transaction(
        async (tx) => {
          const rows = await tx.$queryRaw<{ id: string }[]>`
            SELECT id FROM sessions
             WHERE project_id = ${projectId}::uuid AND last_event_at < ${cutoff}::timestamptz
             ORDER BY last_event_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`;
          addCounts(
            run.deleted,
            await deleteSessionsInTx(
              tx,
              projectId,
              rows.map((r) => r.id),
            ),
          );
          return rows.length;
        },
        { maxWait: 10_000, timeout: 120_000 },
      );
      if (n === 0) break;
      run.batches++;
      run.sessions += n;
    }
    addCounts(run.deleted, await deleteSessionlessBefore(db, projectId, cutoff));
    run.status = 'succeeded';
  } catch (err) {
    run.status = 'failed';
    run.error = err instanceof Error ? err.message : String(err);
  }
  run.finishedAt = new Date().toISOString();
  await db.project.update({ where: { id: projectId }, data: { retentionLastRun: jsonColumn(run) } });
  if (totalRows(run.deleted) > 0 || run.partitionsDropped! > 0)
    await recordAudit(db, projectId, RETENTION_ACTOR, [
      {
        action: 'telemetry.retention.deleted',
        entityType: 'project',
        entityId: projectId,
        after: {
          cutoff: run.cutoff,
          sessions: run.sessions,
          deleted: run.deleted,
          partitionsDropped: run.partitionsDropped,
        },
      },
    ]);
  return { run };
}

/**
 * Rows older than `cutoff` that belong to no stored session (guardrail evaluations, decided
 * approvals with their transitions), deleted in batches of 5 000.
 */
async function deleteSessionlessBefore(
  db: PrismaClient,
  projectId: string,
  cutoff: Date,
): Promise<DeletedRows> {
  const out: DeletedRows = { approval_transitions: 0, approvals: 0, guardrail_evaluations: 0 };
  const p = Prisma.sql`${projectId}::uuid`;
  const c = Prisma.sql`${cutoff}::timestamptz`;
  const noSession = (alias: string) =>
    Prisma.sql`(${Prisma.raw(alias)}.session_id IS NULL OR NOT EXISTS (SELECT 1 FROM sessions s
      WHERE s.project_id = ${p} AND s.id = ${Prisma.raw(alias)}.session_id))`;
  for (;;) {
    const n = await db.$transaction(async (tx) => {
      const ids = await tx.$queryRaw<{ id: string }[]>`
        SELECT a.id FROM approvals a WHERE a.project_id = ${p} AND a.status <> 'pending'
           AND a.created_at < ${c} AND ${noSession('a')} LIMIT 5000`;
      if (ids.length === 0) return 0;
      const list = Prisma.sql`${ids.map((r) => r.id)}::uuid[]`;
      out.approval_transitions! += await tx.$executeRaw`
        DELETE FROM approval_transitions WHERE project_id = ${p} AND approval_id = ANY(${list})`;
      out.approvals! +=
        await tx.$executeRaw`DELETE FROM approvals WHERE project_id = ${p} AND id = ANY(${list})`;
      return ids.length;
    });
    if (n === 0) break;
  }
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM guardrail_evaluations WHERE id = ANY(ARRAY(
        SELECT g.id FROM guardrail_evaluations g WHERE g.project_id = ${p} AND g.evaluated_at < ${c}
           AND ${noSession('g')} LIMIT 5000))`;
    out.guardrail_evaluations! += n;
    if (n === 0) break;
  }
  return out;
}
