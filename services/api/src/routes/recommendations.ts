import { Router, type RequestHandler } from 'express';
import { RecommendationDecisionRequest, RecommendationListQuery, Uuid } from '@agent-warden/contracts';
import {
  decideRecommendation,
  listRecommendations,
  recommendationView,
  type PrismaClient,
} from '@agent-warden/db';
import { AppError, actorOf, notFound, parseOr400, principalOf } from '@agent-warden/http';
import { decodeCursor, toPage } from '../cursor';

/**
 * Guardrail recommendations across sessions (docs/architecture.md#runtime-intelligence): a list newest first
 * with filters and keyset paging (read scope), and a decision (admin scope): `dismissed`, or
 * `accepted`, which creates the recommendation's policy as a DISABLED draft (a person backtests and
 * enables it) and links it (`policyId`). A recommendation is decided once: a second decision is 409
 * with its current state.
 */
export function recommendationsRouter(deps: {
  read: RequestHandler;
  admin: RequestHandler;
  db: PrismaClient;
}): Router {
  const { db } = deps;
  const r = Router();

  r.get('/v1/recommendations', deps.read, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(RecommendationListQuery, req.query, 'query');
    const rows = await listRecommendations(db, projectId, {
      status: q.status,
      kind: q.kind,
      sessionId: q.sessionId ? parseOr400(Uuid, q.sessionId, 'sessionId') : undefined,
      after: q.cursor ? decodeCursor(q.cursor) : undefined,
      take: q.limit + 1,
    });
    res.json(toPage(rows, q.limit, recommendationView, (x) => x.createdAt));
  });

  r.post('/v1/recommendations/:recommendationId/decision', deps.admin, async (req, res) => {
    const principal = principalOf(req);
    const id = parseOr400(Uuid, req.params.recommendationId, 'recommendationId');
    const body = parseOr400(RecommendationDecisionRequest, req.body);
    const out = await decideRecommendation(db, {
      projectId: principal.projectId,
      id,
      status: body.status,
      actor: actorOf(principal),
      comment: body.comment,
    });
    if (!out.ok && out.reason === 'not_found') throw notFound('recommendation');
    if (!out.ok)
      throw new AppError('conflict', `recommendation is already ${out.recommendation.status}`, {
        errors: [{ path: 'status', message: `already ${out.recommendation.status}` }],
      });
    res.status(200).json(recommendationView(out.recommendation));
  });
  return r;
}
