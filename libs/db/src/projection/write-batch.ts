import { createPriceTable, type EvaluationRecord, type PriceTable } from '@agent-warden/contracts';
import type { PoolClient } from 'pg';
import { pgPoolOf, Prisma, type PrismaClient } from '../client';
import { llmCallRowOfEvent } from '../llm-calls';
import { scoreRowOfEvent } from '../scores';
import { aggregateRuns, aggregateSessions, scoped, uniqueBy } from './aggregate';
import { insertEvents } from './insert-events';
import { projectRows } from './project-rows';
import type { ProjectedEvent } from './types';

export type { ProjectedEvent };

/** What one write stored (only new rows count: re-deliveries store nothing). */
export interface WriteResult {
  eventsInserted: number;
  evaluationsInserted: number;
  /** Score rows stored from fresh `agent.score.recorded` events (one with an already stored scoreId adds none). */
  scoresInserted: number;
  /** LLM call rows stored from fresh `agent.llm.called` events (one with an already stored llmCallId adds none). */
  llmCallsInserted: number;
  /** Sessions that received new events (readiness is scheduled from these); ids are per project. */
  sessions: { projectId: string; sessionId: string }[];
  /**
   * Sessions that received new guardrail evaluations (dry runs excluded, as in the analysis), so a
   * late evaluation makes the session's intelligence stale like a late event does.
   */
  evaluatedSessions: { projectId: string; sessionId: string }[];
}

/** A {@link WriteResult} of nothing stored (a fresh object each call: callers add into it). */
export function emptyWriteResult(): WriteResult {
  return {
    eventsInserted: 0,
    evaluationsInserted: 0,
    scoresInserted: 0,
    llmCallsInserted: 0,
    sessions: [],
    evaluatedSessions: [],
  };
}

/** The score rows of the `agent.score.recorded` events (docs/architecture.md#scores), one per score id. */
function scoreRows(events: ProjectedEvent[]) {
  const rows = events.flatMap(({ projectId, event: e }) =>
    e.type === 'agent.score.recorded' ? [scoreRowOfEvent(projectId, e)] : [],
  );
  return uniqueBy(rows, (r) => scoped(r.projectId, r.id));
}

/** The LLM call rows of the `agent.llm.called` events (docs/architecture.md#llm-calls), one per call id, priced with `prices`. */
function llmCallRows(events: ProjectedEvent[], prices: PriceTable) {
  const rows = events.flatMap(({ projectId, event: e }) =>
    e.type === 'agent.llm.called' ? [llmCallRowOfEvent(projectId, e, prices)] : [],
  );
  return uniqueBy(rows, (r) => scoped(r.projectId, r.id));
}

/** The default price table, made once (for callers that pass none). */
let defaultPrices: PriceTable | undefined;

/**
 * Stores a batch in one transaction, idempotently (docs/architecture.md#exactly-once): events are
 * inserted with `ON CONFLICT DO NOTHING` on their key `(project_id, id, time)` ({@link insertEvents}), and
 * session counters, runs, scores and LLM calls are derived only from the events this write actually
 * inserted, and stored with the evaluations in one more statement ({@link projectRows}) — so a
 * re-delivered batch changes nothing and every event is stored exactly once. LLM calls are priced
 * with `options.prices` (default: contracts `DEFAULT_LLM_PRICES` alone). Every client-chosen id is
 * scoped by the record's project: sessions and runs are upserted on `(project_id, id)`, so another
 * project naming the same ids writes its own rows (docs/decisions.md "Ids are owned by a project").
 *
 * Runs on a connection of `db`'s own `pg` pool ({@link pgPoolOf}; `db` must come from
 * `createPrisma`), not through Prisma: BEGIN, the events statement, the projections statement,
 * COMMIT — four round trips (docs/decisions.md "The projector's batch write runs on the pg pool
 * Prisma shares"). Throws on any database error after rolling back, including a foreign-key
 * violation (SQLSTATE 23503) when a record names another project's agent, agent version or policy
 * (the caller retries or isolates); nothing of a failed batch is stored.
 */
export async function writeBatch(
  db: PrismaClient,
  batchEvents: ProjectedEvent[],
  batchEvaluations: EvaluationRecord[],
  options: { prices?: PriceTable } = {},
): Promise<WriteResult> {
  const prices = options.prices ?? (defaultPrices ??= createPriceTable());
  // A batch may hold the same event twice (a client retry landing next to the original).
  const events = uniqueBy(batchEvents, (e) => scoped(e.projectId, e.event.id));
  const evaluations = uniqueBy(batchEvaluations, (e) => e.evaluationId);
  if (events.length === 0 && evaluations.length === 0) return emptyWriteResult();
  const client = await pgPoolOf(db).connect();
  let healthy = true;
  try {
    await client.query('BEGIN');
    const result = await writeInTransaction(client, events, evaluations, prices);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // Nothing of a failed batch stays; a connection that cannot even roll back is not reused.
    await client.query('ROLLBACK').catch(() => (healthy = false));
    throw err;
  } finally {
    client.release(!healthy);
  }
}

async function writeInTransaction(
  client: PoolClient,
  events: ProjectedEvent[],
  evaluations: EvaluationRecord[],
  prices: PriceTable,
): Promise<WriteResult> {
  let fresh: ProjectedEvent[] = [];
  if (events.length > 0) {
    const inserted = await insertEvents(client, events);
    if (inserted.length === events.length) fresh = events;
    else if (inserted.length > 0) {
      const ids = new Set(inserted.map(([projectId, id]) => scoped(projectId, id)));
      fresh = events.filter((e) => ids.has(scoped(e.projectId, e.event.id)));
    }
  }
  const projected =
    fresh.length > 0 || evaluations.length > 0
      ? await projectRows(client, {
          sessions: fresh.length > 0 ? aggregateSessions(fresh) : [],
          runs: fresh.length > 0 ? aggregateRuns(fresh) : [],
          scores: fresh.length > 0 ? scoreRows(fresh) : [],
          llmCalls: fresh.length > 0 ? llmCallRows(fresh, prices) : [],
          evaluations,
        })
      : { scoresInserted: 0, llmCallsInserted: 0, evaluationsInserted: 0, evaluatedSessions: [] };
  return {
    eventsInserted: fresh.length,
    evaluationsInserted: projected.evaluationsInserted,
    scoresInserted: projected.scoresInserted,
    llmCallsInserted: projected.llmCallsInserted,
    sessions: uniqueBy(
      fresh.map((e) => ({ projectId: e.projectId, sessionId: e.event.sessionId })),
      (s) => scoped(s.projectId, s.sessionId),
    ),
    evaluatedSessions: projected.evaluatedSessions,
  };
}

/**
 * Marks agents as seen (best effort, outside the batch transaction to avoid cross-partition lock
 * waits). `lastSeen` maps `<projectId>:<agentId>` to the newest event time; an agent of another
 * project than the key says is left alone.
 */
export async function touchAgents(db: PrismaClient, lastSeen: Map<string, Date>): Promise<void> {
  if (lastSeen.size === 0) return;
  const values = [...lastSeen]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, t]) => {
      const [projectId, id] = key.split(':');
      return Prisma.sql`(${projectId}::text, ${id}::uuid, ${t}::timestamptz)`;
    });
  // The project id is compared as text: a record with a malformed project id (dead-lettered) must
  // not make the update of the others fail.
  await db.$executeRaw`
    UPDATE agents a SET last_seen_at = GREATEST(coalesce(a.last_seen_at, v.t), v.t)
    FROM (VALUES ${Prisma.join(values)}) AS v(project_id, id, t)
    WHERE a.id = v.id AND a.project_id::text = v.project_id`;
}

/** The {@link touchAgents} key of an agent. */
export const agentSeenKey = scoped;
