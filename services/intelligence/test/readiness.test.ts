import type { SessionInput } from '@agent-warden/intelligence';
import { checkReadiness } from '../src/readiness';

function input(opts: { ended?: boolean; runs?: string[]; events?: number }): SessionInput {
  const t = '2026-01-01T00:00:00.000Z';
  return {
    session: {
      id: 's',
      projectId: 'p',
      agentId: 'a',
      agentKey: null,
      status: opts.ended ? 'completed' : 'active',
      inputSummary: null,
      startedAt: t,
      endedAt: opts.ended ? t : null,
      lastEventAt: t,
      eventCount: opts.events ?? 1,
      maxSequence: opts.events ?? 1,
    },
    runs: (opts.runs ?? []).map((status, i) => ({
      id: `r${i}`,
      name: null,
      status,
      inputSummary: null,
      outputSummary: null,
      error: null,
      startedAt: t,
      endedAt: null,
    })),
    events: Array.from({ length: opts.events ?? 1 }, (_, i) => ({
      id: `e${i}`,
      type: 'agent.custom' as const,
      time: t,
      sequence: i + 1,
      runId: null,
      parentId: null,
      data: { name: 'x' },
    })),
    approvals: [],
    evaluations: [],
  };
}

describe('checkReadiness', () => {
  test('an ended session is ready, whatever its runs say', () => {
    expect(checkReadiness(input({ ended: true, runs: ['running'] }), 'ended')).toEqual({
      ready: true,
      because: 'ended',
    });
    expect(checkReadiness(input({ ended: true }), 'quiet')).toEqual({ ready: true, because: 'ended' });
  });
  test('a quiet session is ready only when no run is still running', () => {
    expect(checkReadiness(input({ runs: ['succeeded', 'failed'] }), 'quiet')).toEqual({
      ready: true,
      because: 'quiet',
    });
    expect(checkReadiness(input({ runs: [] }), 'late_event')).toEqual({ ready: true, because: 'quiet' });
    expect(checkReadiness(input({ runs: ['succeeded', 'running'] }), 'quiet')).toEqual({
      ready: false,
      because: 'run_still_running',
    });
  });
  test('a manual request is served even mid-run; a session without events never is', () => {
    expect(checkReadiness(input({ runs: ['running'] }), 'manual')).toEqual({
      ready: true,
      because: 'manual',
    });
    expect(checkReadiness(input({ events: 0 }), 'manual')).toEqual({ ready: false, because: 'no_events' });
  });
});
