import type { ApprovalTransition, WardenEvent } from '../api/types';

/**
 * A row of the replay timeline: an event, a gap of lost events (missing `sequence` numbers), or an
 * approval transition (a service row: not an event, so play / step / scrub skip it). `linked` is
 * the index of the approval's own event (`agent.approval.requested` for the creation,
 * `agent.approval.resolved` for a decision, each falling back to the other), when loaded.
 */
export type TimelineRow =
  | { kind: 'event'; event: WardenEvent; index: number }
  | { kind: 'gap'; from: number; to: number }
  | { kind: 'approval'; transition: ApprovalTransition; linked?: number };

/** The timeline of a session: rows in order, and the row of each event (by event index). */
export interface Timeline {
  /** Events sorted by `sequence` (then time, id). */
  events: WardenEvent[];
  rows: TimelineRow[];
  /** `rowOf[i]` = the row index of `events[i]`. */
  rowOf: number[];
  /** Event index by event id. */
  indexOf: Map<string, number>;
  /** Number of sequence numbers missing in 1..max (lost events). */
  lost: number;
}

/** Options of {@link buildTimeline}. */
export interface TimelineOptions {
  /**
   * Every event of the session is loaded (default true). While later pages are still loading,
   * transitions later than every loaded event are held back instead of piling up at the end.
   */
  complete?: boolean;
}

/**
 * Orders events by `sequence` and inserts a gap row wherever numbers are missing (before the first
 * event when it is not 1, and between any two events more than 1 apart). Duplicated sequences are
 * kept side by side; they are not gaps.
 *
 * Approval transitions (the session detail's `approvalTransitions`) are merged in by time: each goes
 * right before the first event row (in replay order) whose `time` is later than its `at`, ties after
 * the event; the rest follow the last event. Selection stays an event index: `events`, `rowOf` and
 * `indexOf` hold events only, so the player never stops on a transition.
 */
export function buildTimeline(
  input: readonly WardenEvent[],
  transitions: readonly ApprovalTransition[] = [],
  { complete = true }: TimelineOptions = {},
): Timeline {
  const events = [...input].sort(
    (a, b) => a.sequence - b.sequence || a.time.localeCompare(b.time) || a.id.localeCompare(b.id),
  );
  // Stable: transitions at the same instant keep the API's order (oldest first).
  const pending = transitions.map((t) => ({ t, at: Date.parse(t.at) })).sort((a, b) => a.at - b.at);
  const links = approvalLinks(events);
  const approvalRow = (t: ApprovalTransition): TimelineRow => {
    const l = links.get(t.approvalId);
    const linked = t.fromStatus === null ? (l?.requested ?? l?.resolved) : (l?.resolved ?? l?.requested);
    return linked === undefined
      ? { kind: 'approval', transition: t }
      : { kind: 'approval', transition: t, linked };
  };
  const rows: TimelineRow[] = [];
  const rowOf: number[] = [];
  const indexOf = new Map<string, number>();
  let expected = 1;
  let lost = 0;
  let next = 0;
  events.forEach((event, index) => {
    if (event.sequence > expected) {
      rows.push({ kind: 'gap', from: expected, to: event.sequence - 1 });
      lost += event.sequence - expected;
    }
    expected = Math.max(expected, event.sequence + 1);
    const time = Date.parse(event.time);
    for (let p = pending[next]; p && p.at < time; p = pending[++next]) rows.push(approvalRow(p.t));
    rowOf.push(rows.length);
    rows.push({ kind: 'event', event, index });
    indexOf.set(event.id, index);
  });
  if (complete) for (const p of pending.slice(next)) rows.push(approvalRow(p.t));
  return { events, rows, rowOf, indexOf, lost };
}

/** Event indices of each approval's `agent.approval.requested` / `.resolved` event, by `approvalId`. */
function approvalLinks(
  events: readonly WardenEvent[],
): Map<string, { requested?: number; resolved?: number }> {
  const links = new Map<string, { requested?: number; resolved?: number }>();
  events.forEach((e, i) => {
    if (e.type !== 'agent.approval.requested' && e.type !== 'agent.approval.resolved') return;
    const id = (e.data as { approvalId?: unknown } | null)?.approvalId;
    if (typeof id !== 'string') return;
    const l = links.get(id) ?? {};
    if (e.type === 'agent.approval.requested') l.requested ??= i;
    else l.resolved ??= i;
    links.set(id, l);
  });
  return links;
}

/** The events of one tool call (shared `toolCallId`) and its guard decision. */
export interface ToolCall {
  toolCallId: string;
  toolName: string;
  started?: WardenEvent;
  completed?: WardenEvent;
  failed?: WardenEvent;
  guard?: WardenEvent;
  approvalRequested?: WardenEvent;
  approvalResolved?: WardenEvent;
}

/**
 * Groups tool events, guardrail evaluations and approvals by `toolCallId` (approvals resolved are
 * joined through their `approvalId`).
 */
export function toolCalls(events: readonly WardenEvent[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  const byApproval = new Map<string, ToolCall>();
  const get = (id: string, name?: unknown): ToolCall => {
    let c = calls.get(id);
    if (!c) {
      c = { toolCallId: id, toolName: typeof name === 'string' ? name : '' };
      calls.set(id, c);
    }
    if (!c.toolName && typeof name === 'string') c.toolName = name;
    return c;
  };
  for (const e of events) {
    const d = (e.data ?? {}) as Record<string, unknown>;
    const id = typeof d.toolCallId === 'string' ? d.toolCallId : undefined;
    if (e.type === 'agent.approval.resolved' && typeof d.approvalId === 'string') {
      const c = byApproval.get(d.approvalId);
      if (c) c.approvalResolved = e;
      continue;
    }
    if (!id) continue;
    const c = get(id, d.toolName);
    if (e.type === 'agent.tool.started') c.started = e;
    else if (e.type === 'agent.tool.completed') c.completed = e;
    else if (e.type === 'agent.tool.failed') c.failed = e;
    else if (e.type === 'agent.guardrail.evaluated') c.guard = e;
    else if (e.type === 'agent.approval.requested') {
      c.approvalRequested = e;
      if (typeof d.approvalId === 'string') byApproval.set(d.approvalId, c);
    }
  }
  return calls;
}

/** The tool call id an event belongs to, if any. */
export function toolCallIdOf(e: WardenEvent, calls: Map<string, ToolCall>): string | undefined {
  const d = (e.data ?? {}) as Record<string, unknown>;
  if (typeof d.toolCallId === 'string') return d.toolCallId;
  if (e.type === 'agent.approval.resolved' && typeof d.approvalId === 'string') {
    for (const c of calls.values())
      if ((c.approvalRequested?.data as { approvalId?: string } | undefined)?.approvalId === d.approvalId)
        return c.toolCallId;
  }
  return undefined;
}
