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
 * versions (`agentVersionIds`, up to the caller's limit). One SQL statement, so every count is read
 * from the same snapshot: `events` is the sum of `byType` and all of them describe one moment, also
 * while the projector commits batches (docs/decisions.md "The event counts are one snapshot").
 */
export async function eventStats(
  db: PrismaClient,
  projectId: string,
  agentVersionIds?: readonly string[],
): Promise<EventStats> {
  const vFilter = agentVersionIds
    ? Prisma.sql`AND agent_version_id = ANY(${[...agentVersionIds]}::uuid[])`
    : Prisma.empty;
  const rows = await db.$queryRaw<
    {
      events: bigint;
      sessions: bigint;
      duplicates: bigint;
      by_type: Record<string, number>;
      decisions: Record<string, number>;
    }[]
  >`
    SELECT c.events, c.sessions, d.duplicates, t.by_type, g.decisions
    FROM (SELECT count(*) AS events, count(DISTINCT session_id) AS sessions
          FROM events WHERE project_id = ${projectId}::uuid ${vFilter}) c,
         (SELECT coalesce(sum(n - 1), 0)::bigint AS duplicates FROM (
            SELECT count(*) AS n FROM events WHERE project_id = ${projectId}::uuid ${vFilter}
            GROUP BY session_id, sequence HAVING count(*) > 1) x) d,
         (SELECT coalesce(jsonb_object_agg(type, n), '{}'::jsonb) AS by_type FROM (
            SELECT type, count(*) AS n FROM events WHERE project_id = ${projectId}::uuid ${vFilter}
            GROUP BY type) x) t,
         (SELECT coalesce(jsonb_object_agg(policy_decision, n), '{}'::jsonb) AS decisions FROM (
            SELECT policy_decision, count(*) AS n FROM guardrail_evaluations
            WHERE project_id = ${projectId}::uuid ${vFilter} GROUP BY policy_decision) x) g`;
  const r = rows[0];
  return {
    events: Number(r?.events ?? 0),
    sessions: Number(r?.sessions ?? 0),
    duplicates: Number(r?.duplicates ?? 0),
    byType: r?.by_type ?? {},
    decisions: r?.decisions ?? {},
  };
}
