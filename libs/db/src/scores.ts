import type { AgentEvent, ScoreDataType, ScoreSource, ScoreValue, ScoreView } from '@agent-warden/contracts';
import type { Prisma, PrismaClient } from './client';
import type { Score } from './generated/prisma/client';

/*
 * Scores (docs/architecture.md#scores): one row per `(project_id, id)`, written with one statement
 * (`INSERT … ON CONFLICT DO NOTHING`) by the projector, from `agent.score.recorded` events, and by
 * the api's scores route (docs/decisions.md "Scores set through the API are written by the api").
 */

/** A score as it is stored (the Prisma model `Score` without `createdAt`). */
export type ScoreRow = Omit<Score, 'createdAt'>;

/** The columns of a value: numeric → the number, boolean → 1 / 0 (Langfuse's form), categorical → the label. */
export function scoreValueColumns(value: ScoreValue): Pick<ScoreRow, 'numericValue' | 'stringValue'> {
  if (typeof value === 'number') return { numericValue: value, stringValue: null };
  if (typeof value === 'boolean') return { numericValue: value ? 1 : 0, stringValue: null };
  return { numericValue: null, stringValue: value };
}

/** The value of a stored score, typed by its `dataType`. */
export function scoreValueOf(row: Pick<ScoreRow, 'dataType' | 'numericValue' | 'stringValue'>): ScoreValue {
  if (row.dataType === 'boolean') return row.numericValue === 1;
  if (row.dataType === 'numeric') return row.numericValue ?? 0;
  return row.stringValue ?? '';
}

/**
 * The row of an `agent.score.recorded` event: id = the event's `scoreId`, else the event id; on the
 * event's run when it has one; author `agent`; time = the event's time.
 */
export function scoreRowOfEvent(
  projectId: string,
  e: Extract<AgentEvent, { type: 'agent.score.recorded' }>,
): ScoreRow {
  return {
    id: e.data.scoreId ?? e.id,
    projectId,
    sessionId: e.sessionId,
    runId: e.runId ?? null,
    agentId: e.agentId,
    agentVersionId: e.agentVersionId,
    name: e.data.name,
    dataType: e.data.dataType,
    ...scoreValueColumns(e.data.value),
    source: e.data.source,
    comment: e.data.comment ?? null,
    author: 'agent',
    eventId: e.id,
    time: new Date(e.time),
  };
}

/**
 * Inserts scores, each at most once: `ON CONFLICT (project_id, id) DO NOTHING` (Prisma's
 * `skipDuplicates`), so a re-delivered event or a retried request stores nothing new. Returns the
 * keys actually inserted. Throws on a foreign-key violation (an unknown session, agent or version of
 * the project).
 */
export async function insertScores(
  tx: Prisma.TransactionClient | PrismaClient,
  rows: ScoreRow[],
): Promise<{ projectId: string; id: string }[]> {
  if (rows.length === 0) return [];
  return tx.score.createManyAndReturn({
    data: rows,
    skipDuplicates: true,
    select: { projectId: true, id: true },
  });
}

/**
 * Stores one score set through the api and returns it with `created` = whether this call stored it
 * (false: a score with this id was already stored, which is returned as stored).
 */
export async function recordScore(
  db: PrismaClient,
  row: ScoreRow,
): Promise<{ created: boolean; score: Score }> {
  const inserted = await insertScores(db, [row]);
  const score = await db.score.findUniqueOrThrow({
    where: { projectId_id: { projectId: row.projectId, id: row.id } },
  });
  return { created: inserted.length === 1, score };
}

/** The scores of a session and its runs, oldest first, at most `limit`. */
export function listSessionScores(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  limit: number,
): Promise<Score[]> {
  return db.score.findMany({
    where: { projectId, sessionId },
    orderBy: [{ time: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}

/** Stored score → wire form ({@link ScoreView}). */
export function scoreView(s: Score): ScoreView {
  return {
    id: s.id,
    sessionId: s.sessionId,
    runId: s.runId,
    agentId: s.agentId,
    agentVersionId: s.agentVersionId,
    name: s.name,
    value: scoreValueOf(s),
    dataType: s.dataType as ScoreDataType,
    source: s.source as ScoreSource,
    comment: s.comment,
    author: s.author,
    eventId: s.eventId,
    time: s.time.toISOString(),
  };
}

/** Whether `runId` is a stored run of the project's session `sessionId`. */
export async function isRunOfSession(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  runId: string,
): Promise<boolean> {
  const r = await db.run.findFirst({ where: { projectId, id: runId, sessionId }, select: { id: true } });
  return r !== null;
}
