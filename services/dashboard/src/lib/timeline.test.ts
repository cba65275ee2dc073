import type { ApprovalTransition, WardenEvent } from '../api/types';
import { buildTimeline, toolCalls } from './timeline';

const ev = (sequence: number, type = 'agent.custom', data: unknown = {}): WardenEvent => ({
  id: `e${sequence}`,
  type,
  time: new Date(1_700_000_000_000 + sequence * 1000).toISOString(),
  sessionId: 's',
  runId: null,
  parentId: null,
  agentId: 'a',
  agentVersionId: 'v',
  sequence,
  data,
  receivedAt: new Date().toISOString(),
});

/** The rows as short labels: event sequences, gaps and transitions (`id→status`). */
const labels = (rows: ReturnType<typeof buildTimeline>['rows']) =>
  rows.map((r) =>
    r.kind === 'event'
      ? r.event.sequence
      : r.kind === 'gap'
        ? `gap ${r.from}-${r.to}`
        : `${r.transition.id}→${r.transition.toStatus}`,
  );

describe('buildTimeline', () => {
  it('orders by sequence and shows lost events as gaps', () => {
    const t = buildTimeline([ev(5), ev(1), ev(2), ev(9)]);
    expect(t.events.map((e) => e.sequence)).toEqual([1, 2, 5, 9]);
    expect(labels(t.rows)).toEqual([1, 2, 'gap 3-4', 5, 'gap 6-8', 9]);
    expect(t.lost).toBe(5);
    expect(t.rowOf).toEqual([0, 1, 3, 5]);
  });

  it('shows a leading gap when the first events were lost', () => {
    const t = buildTimeline([ev(3)]);
    expect(t.rows[0]).toEqual({ kind: 'gap', from: 1, to: 2 });
  });
});

/** A transition `seconds` after the first event's time (events are 1 s apart, from sequence 1). */
const tr = (
  id: string,
  seconds: number,
  fromStatus: ApprovalTransition['fromStatus'],
  toStatus: ApprovalTransition['toStatus'],
  actor: string,
): ApprovalTransition => ({
  id,
  approvalId: 'ap1',
  sessionId: 's',
  toolName: 'pay',
  fromStatus,
  toStatus,
  actor,
  comment: null,
  at: new Date(1_700_000_000_000 + seconds * 1000).toISOString(),
});

describe('buildTimeline with approval transitions', () => {
  const events = [
    ev(1),
    ev(2, 'agent.approval.requested', { toolCallId: 'c1', approvalId: 'ap1' }),
    ev(3),
    ev(5, 'agent.approval.resolved', { approvalId: 'ap1', status: 'approved' }),
    ev(6),
  ];
  const transitions = [
    // Given out of order: the merge goes by time.
    tr('t2', 4.5, 'pending', 'approved', 'user:alice@example.com'),
    tr('t1', 1.5, null, 'pending', 'gateway'),
    tr('t3', 9, 'approved', 'cancelled', 'system:cleanup'),
  ];

  it('merges transitions among the events by time, as rows that are not events', () => {
    const t = buildTimeline(events, transitions);
    expect(labels(t.rows)).toEqual([1, 't1→pending', 2, 3, 'gap 4-4', 't2→approved', 5, 6, 't3→cancelled']);
    // The player's model is untouched: events only, and each event's row skips the service rows.
    expect(t.events.map((e) => e.sequence)).toEqual([1, 2, 3, 5, 6]);
    expect(t.rowOf).toEqual([0, 2, 3, 6, 7]);
    t.rowOf.forEach((row, i) => expect(t.rows[row]).toEqual({ kind: 'event', event: t.events[i], index: i }));
    expect(t.lost).toBe(1);
  });

  it("links a creation to the approval's requested event and a decision to its resolved event", () => {
    const t = buildTimeline(events, transitions);
    const linked = Object.fromEntries(
      t.rows.flatMap((r) => (r.kind === 'approval' ? [[r.transition.id, r.linked]] : [])),
    );
    expect(linked).toEqual({ t1: 1, t2: 3, t3: 3 });
  });

  it('puts a transition at the same instant as an event after it', () => {
    const t = buildTimeline([ev(1), ev(2)], [tr('t1', 1, null, 'pending', 'gateway')]);
    expect(labels(t.rows)).toEqual([1, 't1→pending', 2]);
  });

  it('holds back transitions later than every loaded event while events are still loading', () => {
    const t = buildTimeline(events.slice(0, 3), transitions, { complete: false });
    expect(labels(t.rows)).toEqual([1, 't1→pending', 2, 3]);
    expect(labels(buildTimeline([], transitions).rows)).toEqual([
      't1→pending',
      't2→approved',
      't3→cancelled',
    ]);
  });
});

describe('toolCalls', () => {
  it('joins a call, its guard decision and its approval', () => {
    const calls = toolCalls([
      ev(1, 'agent.guardrail.evaluated', {
        toolCallId: 'c1',
        toolName: 'pay',
        policyDecision: 'require_approval',
      }),
      ev(2, 'agent.approval.requested', { toolCallId: 'c1', approvalId: 'ap1' }),
      ev(3, 'agent.approval.resolved', { approvalId: 'ap1', status: 'approved' }),
      ev(4, 'agent.tool.started', { toolCallId: 'c1', toolName: 'pay', arguments: { amount: 1 } }),
      ev(5, 'agent.tool.completed', { toolCallId: 'c1', toolName: 'pay', durationMs: 3 }),
    ]);
    const c = calls.get('c1')!;
    expect([
      c.guard?.id,
      c.approvalRequested?.id,
      c.approvalResolved?.id,
      c.started?.id,
      c.completed?.id,
    ]).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
  });
});
