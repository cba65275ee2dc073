import { Prisma, type PrismaClient } from './client';
import type { Agent, AgentVersion, Event, Run, Session } from './generated/prisma/client';

/*
 * The read API's queries of agents, sessions, runs and events (services/api routes read.ts,
 * session-events.ts, intelligence.ts). Every function takes the caller's project and never returns
 * a row of another project.
 */

/** An agent with its versions, newest first. */
export type AgentWithVersions = Agent & { versions: AgentVersion[] };

/** The project's agents, newest first, each with its versions newest first. */
export function listAgentsWithVersions(db: PrismaClient, projectId: string): Promise<AgentWithVersions[]> {
  return db.agent.findMany({
    where: { projectId },
    orderBy: { createdAt: 'desc' },
    include: { versions: { orderBy: { createdAt: 'desc' } } },
  });
}

/** The session `sessionId` of the project, or null when the project has none with that id. */
export function findSession(db: PrismaClient, projectId: string, sessionId: string): Promise<Session | null> {
  return db.session.findFirst({ where: { id: sessionId, projectId } });
}

/** Whether the project has a session `sessionId` (one index probe; no row is read). */
export async function sessionExists(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
): Promise<boolean> {
  const s = await db.session.findFirst({ where: { id: sessionId, projectId }, select: { id: true } });
  return s !== null;
}

/** A session's runs by start time (runs not started yet last), then id. */
export function listSessionRuns(db: PrismaClient, projectId: string, sessionId: string): Promise<Run[]> {
  return db.run.findMany({ where: { sessionId, projectId }, orderBy: [{ startedAt: 'asc' }, { id: 'asc' }] });
}

/** Every event of a session in replay order: `sequence`, then `time`, then `id`. */
export function listAllSessionEvents(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
): Promise<Event[]> {
  return db.event.findMany({
    where: { sessionId, projectId },
    orderBy: [{ sequence: 'asc' }, { time: 'asc' }, { id: 'asc' }],
  });
}

/**
 * Up to `take` events of a session in `(sequence, id)` order, strictly after the keyset position
 * `after` (from the start when absent). The caller asks for one more than a page to learn whether
 * another page follows.
 */
export function sessionEventsAfter(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  take: number,
  after?: { sequence: number; id: string },
): Promise<Event[]> {
  return db.event.findMany({
    where: {
      sessionId,
      projectId,
      ...(after && {
        OR: [{ sequence: { gt: after.sequence } }, { sequence: after.sequence, id: { gt: after.id } }],
      }),
    },
    orderBy: [{ sequence: 'asc' }, { id: 'asc' }],
    take,
  });
}

/** Projection counts of a project (`GET /v1/stats/events`). */
export interface EventStats {
  /** Stored events. */
  events: number;
  /** Sessions with at least one stored event. */
  sessions: number;
  /** Second stored events with the same (session, sequence): the same logical event twice. */
  duplicates: number;
  /** Stored events per event type. */
  byType: Record<string, number>;
  /** Recorded guardrail evaluations per policy decision. */
  decisions: Record<string, number>;
}

/**
 * Counts of a project's stored events and guardrail evaluations, optionally restricted to some agent
 * versions (`agentVersionIds`, up to the caller's limit). Four aggregate queries run concurrently.
 */
export async function eventStats(
  db: PrismaClient,
  projectId: string,
  agentVersionIds?: readonly string[],
): Promise<EventStats> {
  const vFilter = agentVersionIds
    ? Prisma.sql`AND agent_version_id = ANY(${[...agentVersionIds]}::uuid[])`
    : Prisma.empty;
  const [counts, byType, dup, decisions] = await Promise.all([
    db.$queryRaw<{ events: bigint; sessions: bigint }[]>`
      SELECT count(*) AS events, count(DISTINCT session_id) AS sessions
      FROM events WHERE project_id = ${projectId}::uuid ${vFilter}`,
    db.$queryRaw<{ type: string; n: bigint }[]>`
      SELECT type, count(*) AS n FROM events WHERE project_id = ${projectId}::uuid ${vFilter} GROUP BY type`,
    db.$queryRaw<{ n: bigint }[]>`
      SELECT coalesce(sum(c - 1), 0) AS n FROM (
        SELECT count(*) AS c FROM events WHERE project_id = ${projectId}::uuid ${vFilter}
        GROUP BY session_id, sequence HAVING count(*) > 1) d`,
    db.$queryRaw<{ d: string; n: bigint }[]>`
      SELECT policy_decision AS d, count(*) AS n FROM guardrail_evaluations
      WHERE project_id = ${projectId}::uuid ${vFilter} GROUP BY policy_decision`,
  ]);
  return {
    events: Number(counts[0]?.events ?? 0),
    sessions: Number(counts[0]?.sessions ?? 0),
    duplicates: Number(dup[0]?.n ?? 0),
    byType: Object.fromEntries(byType.map((t) => [t.type, Number(t.n)])),
    decisions: Object.fromEntries(decisions.map((t) => [t.d, Number(t.n)])),
  };
}
