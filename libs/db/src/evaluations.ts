import type { PrismaClient } from './client';

/** A stored guardrail evaluation as the read API returns it (the `guardrail_evaluations` row). */
export type StoredEvaluation = NonNullable<Awaited<ReturnType<typeof findEvaluation>>>;

/** The evaluation `id` of a project, or null (another project's id is null as well). */
export function findEvaluation(db: PrismaClient, projectId: string, id: string) {
  return db.guardrailEvaluation.findFirst({ where: { projectId, id } });
}

/**
 * A session's evaluations oldest first (`evaluated_at`, then id), at most `limit` (the session
 * index `guardrail_evaluations(session_id)` finds them; the project filter keeps ids scoped,
 * docs/decisions.md "Ids are owned by a project").
 */
export function listSessionEvaluations(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  limit: number,
) {
  return db.guardrailEvaluation.findMany({
    where: { projectId, sessionId },
    orderBy: [{ evaluatedAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}
