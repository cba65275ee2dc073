import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { SessionDetailQuery, Uuid, type Capability } from '@agent-warden/contracts';
import { Prisma, approvalTransitions, expireDueApprovals, type PrismaClient } from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';
import { eventView, runView, sessionView } from '../views';
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
 * one session with its runs, events in order and approval transitions, events by type, and
 * projection counts. `read` capability (people of any role, keys with `read`); every query is
 * filtered by the principal's project.
 */
export function readRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const { db } = deps;
  const r = Router();

  r.get('/v1/agents', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const agents = await db.agent.findMany({
      where: { projectId },
      orderBy: { createdAt: 'desc' },
      include: { versions: { orderBy: { createdAt: 'desc' } } },
    });
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
    const s = await db.session.findFirst({ where: { id, projectId } });
    if (!s) throw notFound('session');
    // Timeouts of approvals nobody waits on any more are applied first, so they are on the timeline.
    await expireDueApprovals(db, projectId);
    const { eventsLimit } = parseOr400(SessionDetailQuery, req.query, 'query');
    const [runs, events, transitions] = await Promise.all([
      db.run.findMany({
        where: { sessionId: id, projectId },
        orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
      }),
      // Without eventsLimit every event (large sessions: the page loads them with /events).
      eventsLimit === undefined
        ? db.event
            .findMany({
              where: { sessionId: id, projectId },
              orderBy: [{ sequence: 'asc' }, { time: 'asc' }, { id: 'asc' }],
            })
            .then((rows) => ({ items: rows.map(eventView), nextCursor: undefined }))
        : eventsLimit === 0
          ? { items: [], nextCursor: undefined }
          : sessionEventsPage(db, projectId, id, eventsLimit),
      approvalTransitions(db, projectId, { sessionId: id }),
    ]);
    res.json({
      ...sessionView(s),
      runs: runs.map(runView),
      events: events.items,
      ...(events.nextCursor !== undefined && { eventsNextCursor: events.nextCursor }),
      approvalTransitions: transitions,
    });
  });

  // A session's events in replay order, keyset paged: ./session-events.ts.
  r.get('/v1/sessions/:sessionId/events', deps.auth, listSessionEvents(db));

  // Events explorer filters and paging: ./sessions-query.ts (contracts EventsExplorerQuery).
  r.get('/v1/events', deps.auth, listEvents(db));

  r.get('/v1/stats/events', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(StatsQuery, req.query, 'query');
    const versions = q.agentVersionId;
    const vFilter = versions ? Prisma.sql`AND agent_version_id = ANY(${versions}::uuid[])` : Prisma.empty;
    const [counts, byType, dup, decisions] = await Promise.all([
      db.$queryRaw<{ events: bigint; sessions: bigint }[]>`
        SELECT count(*) AS events, count(DISTINCT session_id) AS sessions
        FROM events WHERE project_id = ${projectId}::uuid ${vFilter}`,
      db.$queryRaw<{ type: string; n: bigint }[]>`
        SELECT type, count(*) AS n FROM events WHERE project_id = ${projectId}::uuid ${vFilter} GROUP BY type`,
      // A duplicate is a second stored event with the same (session, sequence): the same logical event twice.
      db.$queryRaw<{ n: bigint }[]>`
        SELECT coalesce(sum(c - 1), 0) AS n FROM (
          SELECT count(*) AS c FROM events WHERE project_id = ${projectId}::uuid ${vFilter}
          GROUP BY session_id, sequence HAVING count(*) > 1) d`,
      db.$queryRaw<{ d: string; n: bigint }[]>`
        SELECT policy_decision AS d, count(*) AS n FROM guardrail_evaluations
        WHERE project_id = ${projectId}::uuid ${vFilter} GROUP BY policy_decision`,
    ]);
    res.json({
      events: Number(counts[0]?.events ?? 0),
      sessions: Number(counts[0]?.sessions ?? 0),
      duplicates: Number(dup[0]?.n ?? 0),
      byType: Object.fromEntries(byType.map((t) => [t.type, Number(t.n)])),
      decisions: Object.fromEntries(decisions.map((t) => [t.d, Number(t.n)])),
    });
  });
  return r;
}
