import type { Event } from './generated/prisma/client';
import type { Prisma, PrismaClient } from './client';

/** Filters of the events explorer, combined with AND. */
export interface EventSearchFilter {
  type?: string;
  agentId?: string;
  sessionId?: string;
  /** `agent.guardrail.evaluated` events whose `data.policyDecision` is this decision (implies that type). */
  decision?: string;
  /** `time >= from`. */
  from?: Date;
  /** `time < to`. */
  to?: Date;
}

/** Keyset position: the last row of the previous page. */
export interface EventSearchAfter {
  time: Date;
  id: string;
}

/** The event type the `decision` filter reads. */
export const GUARDRAIL_EVALUATED = 'agent.guardrail.evaluated';

/**
 * One page of events matching `filter`, newest first (`time desc, id desc`), after `after`; up
 * to `take` rows (ask for `limit + 1`). Served by `events (project_id, type, time)`,
 * `(project_id, agent_id, time)`, `(session_id, time, sequence)` and `(project_id, time)`.
 * Throws on database errors.
 */
export function searchEvents(
  db: PrismaClient,
  projectId: string,
  filter: EventSearchFilter,
  take: number,
  after?: EventSearchAfter,
): Promise<Event[]> {
  const and: Prisma.EventWhereInput[] = [{ projectId }];
  if (filter.type) and.push({ type: filter.type });
  if (filter.decision)
    and.push({ type: GUARDRAIL_EVALUATED, data: { path: ['policyDecision'], equals: filter.decision } });
  if (filter.agentId) and.push({ agentId: filter.agentId });
  if (filter.sessionId) and.push({ sessionId: filter.sessionId });
  if (filter.from) and.push({ time: { gte: filter.from } });
  if (filter.to) and.push({ time: { lt: filter.to } });
  if (after) and.push({ OR: [{ time: { lt: after.time } }, { time: after.time, id: { lt: after.id } }] });
  return db.event.findMany({ where: { AND: and }, orderBy: [{ time: 'desc' }, { id: 'desc' }], take });
}
