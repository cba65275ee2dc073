import type { WardenEvent } from '../api/types';
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

describe('buildTimeline', () => {
  it('orders by sequence and shows lost events as gaps', () => {
    const t = buildTimeline([ev(5), ev(1), ev(2), ev(9)]);
    expect(t.events.map((e) => e.sequence)).toEqual([1, 2, 5, 9]);
    expect(t.rows.map((r) => (r.kind === 'gap' ? `gap ${r.from}-${r.to}` : r.event.sequence))).toEqual([
      1,
      2,
      'gap 3-4',
      5,
      'gap 6-8',
      9,
    ]);
    expect(t.lost).toBe(5);
    expect(t.rowOf).toEqual([0, 1, 3, 5]);
  });

  it('shows a leading gap when the first events were lost', () => {
    const t = buildTimeline([ev(3)]);
    expect(t.rows[0]).toEqual({ kind: 'gap', from: 1, to: 2 });
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
