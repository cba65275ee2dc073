import type { ProjectedEvent } from './types';

/*
 * What a batch's fresh events change in `sessions` and `runs`, folded in memory before the one
 * upsert of each (docs/architecture.md#exactly-once: only events the write actually inserted are
 * folded, so a re-delivery changes nothing).
 */

/** One `sessions` row's share of a batch: its counters and bounds over the batch's fresh events. */
export interface SessionAgg {
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

/** One `runs` row's share of a batch: what its `agent.run.started` / `agent.run.completed` events say. */
export interface RunAgg {
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
export const scoped = (projectId: string, id: string) => `${projectId}:${id}`;

/**
 * The sessions of `events`, one per `(projectId, sessionId)`: event count, first and last event
 * time, highest sequence, the input summary (the session's `agent.session.started`, else the first
 * `agent.run.started` that has one) and, when the session ended, its end time and status.
 */
export function aggregateSessions(events: readonly ProjectedEvent[]): SessionAgg[] {
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

/**
 * The runs of `events`' `agent.run.started` / `agent.run.completed` events, one per
 * `(projectId, runId)`: name, input summary and start from the start; status, output summary, error
 * and end from the completion (status `running` while only started).
 */
export function aggregateRuns(events: readonly ProjectedEvent[]): RunAgg[] {
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

/** `items` without the later ones whose `key` was seen before (first wins, order kept). */
export function uniqueBy<T>(items: readonly T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
