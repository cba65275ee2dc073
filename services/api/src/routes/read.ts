import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { PageQuery, Uuid, type Capability } from '@agent-warden/contracts';
import { Prisma, type PrismaClient } from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';
import { decodeCursor, toPage } from '../cursor';
import { eventView, runView, sessionView } from '../views';

const SessionsQuery = PageQuery.extend({ agentId: Uuid.optional(), agentVersionId: Uuid.optional() });
const EventsQuery = PageQuery.extend({ type: z.string().max(200).optional(), sessionId: Uuid.optional() });
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
 * one session with its runs and events in order, events by type, and projection counts.
 * Every query is filtered by the key's project.
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

  r.get('/v1/sessions', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(SessionsQuery, req.query, 'query');
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await db.session.findMany({
      where: {
        projectId,
        ...(q.agentId ? { agentId: q.agentId } : {}),
        ...(q.agentVersionId ? { agentVersionId: q.agentVersionId } : {}),
        ...(after
          ? { OR: [{ startedAt: { lt: after.time } }, { startedAt: after.time, id: { lt: after.id } }] }
          : {}),
      },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: q.limit + 1,
    });
    res.json(toPage(rows, q.limit, sessionView, (r) => r.startedAt));
  });

  r.get('/v1/sessions/:sessionId', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const s = await db.session.findFirst({ where: { id, projectId } });
    if (!s) throw notFound('session');
    const [runs, events] = await Promise.all([
      db.run.findMany({
        where: { sessionId: id, projectId },
        orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
      }),
      db.event.findMany({
        where: { sessionId: id, projectId },
        orderBy: [{ sequence: 'asc' }, { time: 'asc' }, { id: 'asc' }],
      }),
    ]);
    res.json({ ...sessionView(s), runs: runs.map(runView), events: events.map(eventView) });
  });

  r.get('/v1/events', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(EventsQuery, req.query, 'query');
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await db.event.findMany({
      where: {
        projectId,
        ...(q.type ? { type: q.type } : {}),
        ...(q.sessionId ? { sessionId: q.sessionId } : {}),
        ...(after ? { OR: [{ time: { lt: after.time } }, { time: after.time, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ time: 'desc' }, { id: 'desc' }],
      take: q.limit + 1,
    });
    res.json(toPage(rows, q.limit, eventView, (r) => r.time));
  });

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
