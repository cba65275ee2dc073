import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import {
  SESSION_EVALUATIONS_MAX,
  SESSION_SCORES_MAX,
  SessionDetailQuery,
  Uuid,
  type Capability,
} from '@agent-warden/contracts';
import {
  approvalTransitions,
  eventStats,
  expireDueApprovals,
  findEvaluation,
  findSession,
  listAgentsWithVersions,
  listAllSessionEvents,
  listSessionEvaluations,
  listSessionRuns,
  listSessionScores,
  llmSessionTotals,
  scoreView,
  zeroLlmTotals,
  type PrismaClient,
} from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';
import { evaluationView, eventView, runView, sessionView } from '../views';
import { listSessionEvents, sessionEventsPage } from './session-events';
import { listEvents, listSessions } from './sessions-query';

const StatsQuery = z.object({
  /** Comma-separated agent version ids to restrict the counts to. */
  agentVersionId: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(',').filter(Boolean) : undefined))
    .pipe(z.array(Uuid).max(1000).optional()),
});

/**
 * The first read API (read scope): agents with versions, sessions newest first (keyset paging),
 * one session with its runs, events in order, approval transitions and scores, a session's guardrail
 * evaluations and one evaluation (with their provenance), the session's LLM totals, events by type, and projection counts. `read` capability (people of any role, keys with `read`); every query is
 * filtered by the principal's project.
 */
export function readRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const { db } = deps;
  const r = Router();

  r.get('/v1/agents', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const agents = await listAgentsWithVersions(db, projectId);
    res.json({
      items: agents.map((a) => ({
        id: a.id,
        key: a.key,
        name: a.name,
        description: a.description,
        createdAt: a.createdAt.toISOString(),
        lastSeenAt: a.lastSeenAt?.toISOString() ?? null,
        versions: a.versions.map((v) => ({
          id: v.id,
          version: v.version,
          metadata: v.metadata as Record<string, unknown>,
          capabilities: v.capabilities as Capability[],
          createdAt: v.createdAt.toISOString(),
        })),
      })),
    });
  });

  // Filters and paging: ./sessions-query.ts (contracts SessionsListQuery).
  r.get('/v1/sessions', deps.auth, listSessions(db));

  r.get('/v1/sessions/:sessionId', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const s = await findSession(db, projectId, id);
    if (!s) throw notFound('session');
    // Timeouts of approvals nobody waits on any more are applied first, so they are on the timeline.
    await expireDueApprovals(db, projectId);
    const { eventsLimit } = parseOr400(SessionDetailQuery, req.query, 'query');
    const [runs, events, transitions, scores, llm] = await Promise.all([
      listSessionRuns(db, projectId, id),
      // Without eventsLimit every event (large sessions: the page loads them with /events).
      eventsLimit === undefined
        ? listAllSessionEvents(db, projectId, id).then((rows) => ({
            items: rows.map(eventView),
            nextCursor: undefined,
          }))
        : eventsLimit === 0
          ? { items: [], nextCursor: undefined }
          : sessionEventsPage(db, projectId, id, eventsLimit),
      approvalTransitions(db, projectId, { sessionId: id }),
      listSessionScores(db, projectId, id, SESSION_SCORES_MAX),
      llmSessionTotals(db, projectId, [id]),
    ]);
    res.json({
      ...sessionView(s),
      runs: runs.map(runView),
      events: events.items,
      ...(events.nextCursor !== undefined && { eventsNextCursor: events.nextCursor }),
      approvalTransitions: transitions,
      scores: scores.map(scoreView),
      llm: llm.get(id) ?? zeroLlmTotals(),
    });
  });

  // A session's events in replay order, keyset paged: ./session-events.ts.
  r.get('/v1/sessions/:sessionId/events', deps.auth, listSessionEvents(db));

  // A session's guardrail evaluations with their provenance, oldest first (the replay links each
  // tainted argument to the tool call it came from; docs/provenance.md). No 404 for a session
  // without a row: an evaluation may be stored before the session's first event.
  r.get('/v1/sessions/:sessionId/evaluations', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const rows = await listSessionEvaluations(db, projectId, id, SESSION_EVALUATIONS_MAX);
    res.json({ items: rows.map(evaluationView) });
  });

  r.get('/v1/evaluations/:evaluationId', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.evaluationId, 'evaluationId');
    const e = await findEvaluation(db, projectId, id);
    if (!e) throw notFound('evaluation');
    res.json(evaluationView(e));
  });

  // Events explorer filters and paging: ./sessions-query.ts (contracts EventsExplorerQuery).
  r.get('/v1/events', deps.auth, listEvents(db));

  r.get('/v1/stats/events', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(StatsQuery, req.query, 'query');
    res.json(await eventStats(db, projectId, q.agentVersionId));
  });
  return r;
}
