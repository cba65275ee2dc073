import type { WardenEvent } from '../api/types';

/** A row of the replay timeline: an event, or a gap of lost events (missing `sequence` numbers). */
export type TimelineRow =
  { kind: 'event'; event: WardenEvent; index: number } | { kind: 'gap'; from: number; to: number };

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

/**
 * Orders events by `sequence` and inserts a gap row wherever numbers are missing (before the first
 * event when it is not 1, and between any two events more than 1 apart). Duplicated sequences are
 * kept side by side; they are not gaps.
 */
export function buildTimeline(input: readonly WardenEvent[]): Timeline {
  const events = [...input].sort(
    (a, b) => a.sequence - b.sequence || a.time.localeCompare(b.time) || a.id.localeCompare(b.id),
  );
  const rows: TimelineRow[] = [];
  const rowOf: number[] = [];
  const indexOf = new Map<string, number>();
  let expected = 1;
  let lost = 0;
  events.forEach((event, index) => {
    if (event.sequence > expected) {
      rows.push({ kind: 'gap', from: expected, to: event.sequence - 1 });
      lost += event.sequence - expected;
    }
    expected = Math.max(expected, event.sequence + 1);
    rowOf.push(rows.length);
    rows.push({ kind: 'event', event, index });
    indexOf.set(event.id, index);
  });
  return { events, rows, rowOf, indexOf, lost };
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
