import type { EventType, IntelligenceDraft } from '@agent-warden/contracts';
import type { AnalysisEvent, SessionInput } from '../src/types';

/** Event ids of the hand-made session (UUIDv7-shaped, like the client makes them). */
export const ids = {
  started: '01936b2e-0000-7000-8000-000000000001',
  runStarted: '01936b2e-0000-7000-8000-000000000002',
  searchStarted: '01936b2e-0000-7000-8000-000000000003',
  searchDone: '01936b2e-0000-7000-8000-000000000004',
  payStarted: '01936b2e-0000-7000-8000-000000000005',
  payFailed: '01936b2e-0000-7000-8000-000000000006',
  runDone: '01936b2e-0000-7000-8000-000000000007',
  ended: '01936b2e-0000-7000-8000-000000000008',
} as const;

/** An id that is well formed but belongs to no event of the session. */
export const FOREIGN_ID = '01936b2e-0000-7000-8000-0000000000ff';

const runId = '01936b2e-0000-7000-8000-0000000000a1';
const t = (s: number) => new Date(Date.UTC(2026, 0, 5, 9, 0, s)).toISOString();

function ev(id: string, type: EventType, seq: number, data: Record<string, unknown>): AnalysisEvent {
  return { id, type, time: t(seq * 2), sequence: seq, runId, parentId: null, data };
}

/** A small session by hand: a search that works, a payment that fails, a failed run. */
export function sessionInput(): SessionInput {
  return {
    session: {
      id: '01936b2e-0000-7000-8000-00000000005e',
      projectId: 'p-1',
      agentId: 'a-1',
      agentKey: 'travel-agent',
      status: 'failed',
      inputSummary: 'Book the cheapest flight to Paris on 12 March and pay for it',
      startedAt: t(2),
      endedAt: t(16),
      lastEventAt: t(16),
      eventCount: 8,
      maxSequence: 8,
    },
    runs: [
      {
        id: runId,
        name: 'book-flight',
        status: 'failed',
        inputSummary: 'Book the cheapest flight to Paris on 12 March and pay for it',
        outputSummary: null,
        error: 'payment declined',
        startedAt: t(4),
        endedAt: t(14),
      },
    ],
    events: [
      ev(ids.started, 'agent.session.started', 1, {}),
      ev(ids.runStarted, 'agent.run.started', 2, { name: 'book-flight' }),
      ev(ids.searchStarted, 'agent.tool.started', 3, {
        toolName: 'search_flights',
        arguments: { to: 'CDG' },
      }),
      ev(ids.searchDone, 'agent.tool.completed', 4, { toolName: 'search_flights', result: '3 flights' }),
      ev(ids.payStarted, 'agent.tool.started', 5, { toolName: 'send_money', arguments: { amount: 212 } }),
      ev(ids.payFailed, 'agent.tool.failed', 6, { toolName: 'send_money', error: 'payment declined' }),
      ev(ids.runDone, 'agent.run.completed', 7, { status: 'failed' }),
      ev(ids.ended, 'agent.session.ended', 8, { status: 'failed' }),
    ],
    approvals: [],
    evaluations: [],
  };
}

/** The deterministic draft of {@link sessionInput}, as the analysers would write it. */
export function deterministicDraft(): IntelligenceDraft {
  return {
    summary: {
      text: 'travel-agent was asked to book a flight; 2 tool calls, 1 failed (send_money); the run failed.',
      input: 'Book the cheapest flight to Paris on 12 March and pay for it',
      outcome: { status: 'failed', text: 'The run book-flight failed: payment declined.' },
      figures: {
        runs: 1,
        runsByStatus: { failed: 1 },
        events: 8,
        toolCalls: 2,
        toolCallsByTool: { search_flights: { calls: 1, failures: 0 }, send_money: { calls: 1, failures: 1 } },
        toolFailures: 1,
        decisions: {},
        approvals: { requested: 0, approved: 0, denied: 0, expired: 0, cancelled: 0, pending: 0, waitMs: [] },
        durationMs: 14_000,
        lostEvents: 0,
        sequenceGaps: [],
      },
    },
    story: [
      { kind: 'start', time: t(2), title: 'Session started', eventIds: [ids.started, ids.runStarted] },
      {
        kind: 'tool_call',
        time: t(6),
        title: 'search_flights succeeded',
        text: 'search_flights returned 3 flights.',
        eventIds: [ids.searchStarted, ids.searchDone],
      },
      {
        kind: 'failure',
        time: t(10),
        title: 'send_money failed',
        text: 'send_money failed: payment declined.',
        eventIds: [ids.payStarted, ids.payFailed],
      },
      { kind: 'end', time: t(16), title: 'Session ended (failed)', eventIds: [ids.runDone, ids.ended] },
    ],
    actionItems: [
      {
        kind: 'run_failed',
        severity: 'high',
        title: 'Run book-flight failed',
        detail: 'The run ended failed after send_money failed: payment declined.',
        evidenceEventIds: [ids.payFailed, ids.runDone],
      },
    ],
    recommendations: [
      {
        kind: 'sensitive_tool_approval',
        title: 'Ask a person before send_money',
        rationale: 'send_money moves money and failed in this session.',
        severity: 'medium',
        policy: {
          name: 'Approve send_money',
          enabled: false,
          decision: 'require_approval',
          match: { field: 'tool.name', op: 'eq', value: 'send_money' },
        },
        evidenceEventIds: [ids.payStarted],
      },
    ],
    generator: 'deterministic',
  };
}
