import { Router, type RequestHandler } from 'express';
import { newId, ScoreRequest, SESSION_SCORES_MAX, Uuid } from '@agent-warden/contracts';
import {
  findSession,
  isRunOfSession,
  listSessionScores,
  recordScore,
  scoreValueColumns,
  scoreView,
  type PrismaClient,
} from '@agent-warden/db';
import { AppError, notFound, parseOr400, principalOf } from '@agent-warden/http';

/**
 * A session's scores (docs/architecture.md#scores):
 * - `GET /v1/sessions/{sessionId}/scores` (`read`): the scores of the session and its runs, oldest
 *   first (at most {@link SESSION_SCORES_MAX}); 404 for an unknown session.
 * - `POST /v1/sessions/{sessionId}/scores` (`approve`: approver or admin people, admin keys): sets a
 *   score ({@link ScoreRequest}) on the session or on one of its runs, stored at once with the
 *   projector's statement (docs/decisions.md "Scores set through the API are written by the api").
 *   201 with the score; a `scoreId` already stored answers 200 with the stored score (idempotent).
 *   404 for an unknown session, and for a `runId` that is not one of its runs (naming `runId`).
 *   The author is the principal's actor (`user:<email>` or `api-key:<id>`).
 */
export function scoresRouter(deps: {
  read: RequestHandler;
  approve: RequestHandler;
  db: PrismaClient;
}): Router {
  const { db } = deps;
  const r = Router();

  r.get('/v1/sessions/:sessionId/scores', deps.read, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    if (!(await findSession(db, projectId, id))) throw notFound('session');
    const rows = await listSessionScores(db, projectId, id, SESSION_SCORES_MAX);
    res.json({ items: rows.map(scoreView) });
  });

  r.post('/v1/sessions/:sessionId/scores', deps.approve, async (req, res) => {
    const principal = principalOf(req);
    const { projectId } = principal;
    const sessionId = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const body = parseOr400(ScoreRequest, req.body);
    const session = await findSession(db, projectId, sessionId);
    if (!session) throw notFound('session');
    if (body.runId && !(await isRunOfSession(db, projectId, sessionId, body.runId)))
      throw new AppError('not_found', 'run not found in this session', {
        errors: [{ path: 'runId', message: 'not a run of this session' }],
      });
    const { created, score } = await recordScore(db, {
      id: body.scoreId ?? newId(),
      projectId,
      sessionId,
      runId: body.runId ?? null,
      agentId: session.agentId,
      agentVersionId: session.agentVersionId,
      name: body.name,
      dataType: body.dataType,
      ...scoreValueColumns(body.value),
      source: body.source,
      comment: body.comment ?? null,
      author: principal.actor,
      eventId: null,
      time: new Date(),
    });
    // A scoreId stored for another session is not this session's score: say so rather than answer it.
    if (score.sessionId !== sessionId)
      throw new AppError('conflict', 'scoreId is already used by another session', {
        errors: [{ path: 'scoreId', message: 'already used by another session' }],
      });
    res.status(created ? 201 : 200).json(scoreView(score));
  });
  return r;
}
