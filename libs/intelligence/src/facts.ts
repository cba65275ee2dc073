import type { AnalysisEvent, SessionInput } from './types';

/** One tool call of the session, joined from its `agent.tool.*` and `agent.guardrail.evaluated` events. */
export interface ToolCallFact {
  toolCallId: string;
  toolName: string;
  /** Position of the call in the session (0-based, order of its first event). */
  index: number;
  started?: AnalysisEvent;
  /** `agent.tool.completed` or `agent.tool.failed`. */
  ended?: AnalysisEvent;
  /** The guardrail evaluations of the call (usually one, before it started). */
  evaluations: AnalysisEvent[];
  /** `completed` | `failed` | `unfinished` (started, never ended) | `not_run` (guarded, stopped before it started). */
  status: 'completed' | 'failed' | 'unfinished' | 'not_run';
  arguments: Record<string, unknown>;
  result: unknown;
  error: string | null;
  /** The event that stands for the call on the timeline (started, else ended, else its evaluation). */
  anchor: AnalysisEvent;
  /** Every event id of the call, in sequence order. */
  eventIds: string[];
}

/** Approval as the analysers see it, from the service's rows or, without them, from the approval events. */
export interface ApprovalFact {
  approvalId: string;
  toolName: string | null;
  toolCallId: string | null;
  status: string;
  /** Wait from request to decision, ms (`null` while pending). */
  waitMs: number | null;
  /** Event ids naming the approval (requested, resolved, and the evaluation that asked for it). */
  eventIds: string[];
}

/** Indexes over a session's events that every analyser shares. Built once per analysis. */
export interface SessionFacts {
  input: SessionInput;
  /** Events sorted by sequence (then time, then id, so the order is total). */
  events: AnalysisEvent[];
  byId: Map<string, AnalysisEvent>;
  toolCalls: ToolCallFact[];
  toolCallById: Map<string, ToolCallFact>;
  evaluations: AnalysisEvent[];
  approvals: ApprovalFact[];
  /** The user's request: session input, first run's input, first user message (in that order). */
  task: string | null;
  /** The event that carries {@link SessionFacts.task}, if any. */
  taskEvent: AnalysisEvent | null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function sortEvents(events: readonly AnalysisEvent[]): AnalysisEvent[] {
  return [...events].sort(
    (a, b) =>
      a.sequence - b.sequence ||
      (a.time < b.time ? -1 : a.time > b.time ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

function errorText(data: Record<string, unknown>): string | null {
  const e = data.error;
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    return (e as { message: string }).message;
  }
  return typeof e === 'string' ? e : null;
}

function collectToolCalls(events: AnalysisEvent[]): ToolCallFact[] {
  const calls = new Map<string, ToolCallFact>();
  const get = (id: string, name: string, e: AnalysisEvent): ToolCallFact => {
    let c = calls.get(id);
    if (!c) {
      c = {
        toolCallId: id,
        toolName: name,
        index: calls.size,
        evaluations: [],
        status: 'not_run',
        arguments: {},
        result: undefined,
        error: null,
        anchor: e,
        eventIds: [],
      };
      calls.set(id, c);
    }
    c.eventIds.push(e.id);
    return c;
  };
  for (const e of events) {
    const id = str(e.data.toolCallId);
    if (!id) continue;
    const name = str(e.data.toolName) ?? 'unnamed';
    switch (e.type) {
      case 'agent.guardrail.evaluated':
        get(id, name, e).evaluations.push(e);
        break;
      case 'agent.tool.started': {
        const c = get(id, name, e);
        c.toolName = name;
        c.started = e;
        c.anchor = e;
        const args = e.data.arguments;
        c.arguments =
          args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
        if (c.status === 'not_run') c.status = 'unfinished';
        break;
      }
      case 'agent.tool.completed':
      case 'agent.tool.failed': {
        const c = get(id, name, e);
        c.ended = e;
        if (!c.started) c.anchor = e;
        c.status = e.type === 'agent.tool.completed' ? 'completed' : 'failed';
        if (e.type === 'agent.tool.completed') c.result = e.data.result;
        else c.error = errorText(e.data) ?? 'failed';
        break;
      }
      default:
        break;
    }
  }
  return [...calls.values()];
}

function approvalsFromEvents(events: AnalysisEvent[], evaluations: AnalysisEvent[]): ApprovalFact[] {
  const out = new Map<string, ApprovalFact & { requestedAt?: string }>();
  for (const e of events) {
    const id = str(e.data.approvalId);
    if (!id || (e.type !== 'agent.approval.requested' && e.type !== 'agent.approval.resolved')) continue;
    let a = out.get(id);
    if (!a) {
      a = { approvalId: id, toolName: null, toolCallId: null, status: 'pending', waitMs: null, eventIds: [] };
      out.set(id, a);
    }
    a.eventIds.push(e.id);
    if (e.type === 'agent.approval.requested') {
      a.requestedAt = e.time;
      a.toolCallId = str(e.data.toolCallId);
    } else {
      a.status = str(e.data.status) ?? 'expired';
      const waited = e.data.waitedMs;
      a.waitMs =
        typeof waited === 'number'
          ? waited
          : a.requestedAt
            ? Math.max(0, Date.parse(e.time) - Date.parse(a.requestedAt))
            : null;
    }
  }
  for (const ev of evaluations) {
    const a = out.get(str(ev.data.approvalId) ?? '');
    if (!a) continue;
    a.toolName = str(ev.data.toolName);
    a.toolCallId ??= str(ev.data.toolCallId);
    if (!a.eventIds.includes(ev.id)) a.eventIds.unshift(ev.id);
  }
  return [...out.values()].map(({ requestedAt: _r, ...a }) => a);
}

/**
 * Approvals: the service's rows (`input.approvals`, the truth about their status) when there are
 * any, with the event ids of the events naming them; else what the approval events tell.
 */
function collectApprovals(
  input: SessionInput,
  events: AnalysisEvent[],
  evaluations: AnalysisEvent[],
): ApprovalFact[] {
  const fromEvents = approvalsFromEvents(events, evaluations);
  if (input.approvals.length === 0) return fromEvents;
  const evIds = new Map(fromEvents.map((a) => [a.approvalId, a]));
  return [...input.approvals]
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
    .map((a) => {
      const ev = evIds.get(a.id);
      const end = a.decidedAt ?? (a.status === 'expired' ? a.expiresAt : null);
      return {
        approvalId: a.id,
        toolName: a.toolName ?? ev?.toolName ?? null,
        toolCallId: ev?.toolCallId ?? null,
        status: a.status,
        waitMs: end && a.status !== 'pending' ? Math.max(0, Date.parse(end) - Date.parse(a.createdAt)) : null,
        eventIds: ev?.eventIds ?? [],
      };
    });
}

function findTask(
  input: SessionInput,
  events: AnalysisEvent[],
): { task: string | null; event: AnalysisEvent | null } {
  const started = events.find((e) => e.type === 'agent.session.started');
  const runStarted = events.find((e) => e.type === 'agent.run.started' && str(e.data.inputSummary));
  const firstUser = events.find((e) => e.type === 'agent.message.logged' && e.data.role === 'user');
  if (input.session.inputSummary)
    return { task: input.session.inputSummary, event: started ?? runStarted ?? null };
  const run = input.runs.find((r) => r.inputSummary);
  if (run?.inputSummary) return { task: run.inputSummary, event: runStarted ?? null };
  if (runStarted) return { task: str(runStarted.data.inputSummary), event: runStarted };
  if (firstUser) return { task: str(firstUser.data.content), event: firstUser };
  return { task: null, event: null };
}

/** Builds the shared indexes of one session. Pure. */
export function buildFacts(input: SessionInput): SessionFacts {
  const events = sortEvents(input.events);
  const evaluations = events.filter((e) => e.type === 'agent.guardrail.evaluated');
  const toolCalls = collectToolCalls(events);
  const { task, event } = findTask(input, events);
  return {
    input,
    events,
    byId: new Map(events.map((e) => [e.id, e])),
    toolCalls,
    toolCallById: new Map(toolCalls.map((c) => [c.toolCallId, c])),
    evaluations,
    approvals: collectApprovals(input, events, evaluations),
    task,
    taskEvent: event,
  };
}
