import {
  createPriceTable,
  evaluationRow,
  type EvaluationRecord,
  type PriceTable,
} from '@agent-warden/contracts';
import { Prisma, type PrismaClient } from '../client';
import { insertLlmCalls, llmCallRowOfEvent } from '../llm-calls';
import { insertScores, scoreRowOfEvent } from '../scores';
import { insertEvents } from './insert-events';
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

interface SessionAgg {
  id: string;
  projectId: string;
  agentId: string;
  agentVersionId: string;
  startedAt: Date;
  lastEventAt: Date;
  endedAt: Date | null;
  status: string | null;
  inputSummary: string | null;
  count: number;
  maxSequence: number;
}

interface RunAgg {
  id: string;
  projectId: string;
  sessionId: string;
  agentId: string;
  agentVersionId: string;
  name: string | null;
  status: string | null;
  inputSummary: string | null;
  outputSummary: string | null;
  error: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** Map key of a client-chosen id: ids are unique per project only (docs/decisions.md "Ids are owned by a project"). */
const scoped = (projectId: string, id: string) => `${projectId}:${id}`;

function aggregateSessions(events: ProjectedEvent[]): SessionAgg[] {
  const m = new Map<string, SessionAgg>();
  for (const { projectId, event: e } of events) {
    const t = new Date(e.time);
    let s = m.get(scoped(projectId, e.sessionId));
    if (!s) {
      s = {
        id: e.sessionId,
        projectId,
        agentId: e.agentId,
        agentVersionId: e.agentVersionId,
        startedAt: t,
        lastEventAt: t,
        endedAt: null,
        status: null,
        inputSummary: null,
        count: 0,
        maxSequence: 0,
      };
      m.set(scoped(projectId, e.sessionId), s);
    }
    s.count += 1;
    if (t < s.startedAt) s.startedAt = t;
    if (t > s.lastEventAt) s.lastEventAt = t;
    if (e.sequence > s.maxSequence) s.maxSequence = e.sequence;
    if (e.type === 'agent.session.started' && e.data.inputSummary) s.inputSummary = e.data.inputSummary;
    if (e.type === 'agent.run.started' && e.data.inputSummary && !s.inputSummary)
      s.inputSummary = e.data.inputSummary;
    if (e.type === 'agent.session.ended') {
      s.endedAt = t;
      s.status = e.data.status;
    }
  }
  return [...m.values()];
}

function aggregateRuns(events: ProjectedEvent[]): RunAgg[] {
  const m = new Map<string, RunAgg>();
  for (const { projectId, event: e } of events) {
    if (e.type !== 'agent.run.started' && e.type !== 'agent.run.completed') continue;
    const id = e.runId!;
    let r = m.get(scoped(projectId, id));
    if (!r) {
      r = {
        id,
        projectId,
        sessionId: e.sessionId,
        agentId: e.agentId,
        agentVersionId: e.agentVersionId,
        name: null,
        status: null,
        inputSummary: null,
        outputSummary: null,
        error: null,
        startedAt: null,
        endedAt: null,
      };
      m.set(scoped(projectId, id), r);
    }
    if (e.type === 'agent.run.started') {
      r.name = e.data.name ?? null;
      r.inputSummary = e.data.inputSummary ?? null;
      r.startedAt = new Date(e.time);
      r.status ??= 'running';
    } else {
      r.status = e.data.status;
      r.outputSummary = e.data.outputSummary ?? null;
      r.error = e.data.error?.message ?? null;
      r.endedAt = new Date(e.time);
    }
  }
  return [...m.values()];
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

function upsertSessions(tx: Prisma.TransactionClient, rows: SessionAgg[]) {
  const values = rows.map(
    (s) => Prisma.sql`(${s.id}::uuid, ${s.projectId}::uuid, ${s.agentId}::uuid, ${s.agentVersionId}::uuid,
      ${s.status ?? 'active'}, ${s.inputSummary}, ${s.startedAt}::timestamptz, ${s.endedAt}::timestamptz,
      ${s.lastEventAt}::timestamptz, ${s.count}::int, ${s.maxSequence}::int)`,
  );
  return tx.$executeRaw`
    INSERT INTO sessions (id, project_id, agent_id, agent_version_id, status, input_summary, started_at,
                          ended_at, last_event_at, event_count, max_sequence)
    VALUES ${Prisma.join(values)}
    ON CONFLICT (project_id, id) DO UPDATE SET
      started_at    = LEAST(sessions.started_at, EXCLUDED.started_at),
      last_event_at = GREATEST(sessions.last_event_at, EXCLUDED.last_event_at),
      ended_at      = COALESCE(EXCLUDED.ended_at, sessions.ended_at),
      status        = CASE WHEN EXCLUDED.ended_at IS NOT NULL THEN EXCLUDED.status ELSE sessions.status END,
      input_summary = COALESCE(sessions.input_summary, EXCLUDED.input_summary),
      event_count   = sessions.event_count + EXCLUDED.event_count,
      max_sequence  = GREATEST(sessions.max_sequence, EXCLUDED.max_sequence)`;
}

function upsertRuns(tx: Prisma.TransactionClient, rows: RunAgg[]) {
  const values = rows.map(
    (r) => Prisma.sql`(${r.id}::uuid, ${r.projectId}::uuid, ${r.sessionId}::uuid, ${r.agentId}::uuid,
      ${r.agentVersionId}::uuid, ${r.name}, ${r.status ?? 'running'}, ${r.inputSummary}, ${r.outputSummary},
      ${r.error}, ${r.startedAt}::timestamptz, ${r.endedAt}::timestamptz)`,
  );
  return tx.$executeRaw`
    INSERT INTO runs (id, project_id, session_id, agent_id, agent_version_id, name, status, input_summary,
                      output_summary, error, started_at, ended_at)
    VALUES ${Prisma.join(values)}
    ON CONFLICT (project_id, id) DO UPDATE SET
      name           = COALESCE(EXCLUDED.name, runs.name),
      status         = CASE WHEN EXCLUDED.ended_at IS NOT NULL OR runs.ended_at IS NULL THEN EXCLUDED.status ELSE runs.status END,
      input_summary  = COALESCE(EXCLUDED.input_summary, runs.input_summary),
      output_summary = COALESCE(EXCLUDED.output_summary, runs.output_summary),
      error          = COALESCE(EXCLUDED.error, runs.error),
      started_at     = COALESCE(EXCLUDED.started_at, runs.started_at),
      ended_at       = COALESCE(EXCLUDED.ended_at, runs.ended_at)`;
}

/**
 * Stores a batch in one transaction, idempotently (docs/architecture.md#exactly-once): events are
 * inserted with `ON CONFLICT DO NOTHING` on their key `(project_id, id, time)` ({@link insertEvents}), and
 * session counters, runs, scores and evaluations are derived only from the events this write actually
 * inserted — so a re-delivered batch changes nothing and every event is stored exactly once. LLM
 * calls are priced with `options.prices` (default: contracts `DEFAULT_LLM_PRICES` alone). Every
 * client-chosen id is scoped by the record's project: sessions and runs are upserted on
 * `(project_id, id)`, so another project naming the same ids writes its own rows (docs/decisions.md
 * "Ids are owned by a project"). Throws on any database error, including a foreign-key violation
 * when a record names another project's agent, agent version or policy (the caller retries or
 * isolates).
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
  return db.$transaction(
    async (tx) => {
      let fresh: ProjectedEvent[] = [];
      let scoresInserted = 0;
      let llmCallsInserted = 0;
      if (events.length > 0) {
        const inserted = await insertEvents(tx, events);
        const ids = new Set(inserted.map((r) => scoped(r.project_id, r.id)));
        fresh = events.filter((e) => ids.has(scoped(e.projectId, e.event.id)));
      }
      if (fresh.length > 0) {
        await upsertSessions(tx, aggregateSessions(fresh));
        const runs = aggregateRuns(fresh);
        if (runs.length > 0) await upsertRuns(tx, runs);
        scoresInserted = (await insertScores(tx, scoreRows(fresh))).length;
        llmCallsInserted = (await insertLlmCalls(tx, llmCallRows(fresh, prices))).length;
      }
      let evaluationsInserted = 0;
      const evaluatedSessions = new Map<string, { projectId: string; sessionId: string }>();
      if (evaluations.length > 0) {
        // RETURNING only the rows this write inserted (re-deliveries are skipped as duplicates).
        const inserted = await tx.guardrailEvaluation.createManyAndReturn({
          // The JSON columns (matchedGuardrails, input) hold plain JSON values, which Prisma's input type cannot see.
          data: evaluations.map(evaluationRow) as unknown as Prisma.GuardrailEvaluationCreateManyInput[],
          skipDuplicates: true,
          select: { projectId: true, sessionId: true, dryRun: true },
        });
        evaluationsInserted = inserted.length;
        for (const v of inserted)
          if (v.sessionId && !v.dryRun)
            evaluatedSessions.set(scoped(v.projectId, v.sessionId), {
              projectId: v.projectId,
              sessionId: v.sessionId,
            });
      }
      return {
        eventsInserted: fresh.length,
        evaluationsInserted,
        scoresInserted,
        llmCallsInserted,
        sessions: uniqueBy(
          fresh.map((e) => ({ projectId: e.projectId, sessionId: e.event.sessionId })),
          (s) => scoped(s.projectId, s.sessionId),
        ),
        evaluatedSessions: [...evaluatedSessions.values()],
      };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}

function uniqueBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
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
