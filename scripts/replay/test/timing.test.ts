import { replayTiming, ReplayClock, timingAnchor, trajectoryTiming } from '../timing';
import { loadTrajectories, type Trajectory, type TrajectoryStep } from '../trajectories';

function step(index: number, s: Partial<TrajectoryStep> & Record<string, unknown> = {}): TrajectoryStep {
  return {
    index,
    kind: 'tool_call',
    role: 'assistant',
    content: null,
    tool: 'lookup',
    arguments: {},
    call_id: null,
    result: 'ok',
    error: null,
    executed: true,
    ...s,
  };
}

function trajectory(
  meta: Record<string, unknown>,
  steps: TrajectoryStep[],
): Pick<Trajectory, 'meta' | 'steps'> {
  return { meta, steps };
}

describe('timing of the shared sources (../shared/data/trajectories)', () => {
  test('AgentDojo: every run has its total (meta.duration_s), shared out evenly over the steps', () => {
    const all = loadTrajectories('agentdojo.jsonl');
    expect(all.length).toBeGreaterThan(0);
    for (const t of all) {
      const timing = trajectoryTiming(t);
      const total = Math.round((t.meta.duration_s as number) * 1000);
      expect(timing).toMatchObject({ kind: 'source-total-only', totalMs: total });
      expect(timing.startMs).toBeUndefined(); // no absolute time in the converted files
      expect(timing.steps).toHaveLength(t.steps.length);
      timing.steps.forEach((s, i) => {
        expect(s.atMs).toBe(Math.round((i * total) / t.steps.length));
        expect(s.durationMs).toBeUndefined();
      });
    }
  });

  test.each(['tau_bench_airline.jsonl', 'swe_agent.jsonl'])('%s carries no timing: replay', (file) => {
    const all = loadTrajectories(file);
    expect(all.length).toBeGreaterThan(0);
    for (const t of all) expect(trajectoryTiming(t)).toEqual({ kind: 'replay', steps: [] });
  });
});

describe('trajectoryTiming rules', () => {
  test('per-step timestamps: source, each step at its own time, tool durations from duration_s', () => {
    const t = trajectory({}, [
      step(0, { kind: 'message', role: 'user', tool: null, timestamp: '2024-05-01T12:00:00Z' }),
      step(1, { timestamp: '2024-05-01T12:00:02.500Z', duration_s: 1.25 }),
      step(2, { timestamp: '2024-05-01T12:00:10+00:00' }),
    ]);
    expect(trajectoryTiming(t)).toEqual({
      kind: 'source',
      startMs: Date.parse('2024-05-01T12:00:00Z'),
      totalMs: 10_000,
      steps: [{ atMs: 0 }, { atMs: 2500, durationMs: 1250 }, { atMs: 10_000 }],
    });
  });

  test('per-step timestamps: an earlier meta.started_at is the start, a longer duration_s the total, a step out of order keeps the previous time', () => {
    const t = trajectory({ started_at: '2024-05-01T11:59:59Z', duration_s: 30 }, [
      step(0, { timestamp: '2024-05-01T12:00:05Z', duration_s: 2 }),
      step(1, { timestamp: '2024-05-01T12:00:01Z' }),
    ]);
    expect(trajectoryTiming(t)).toEqual({
      kind: 'source',
      startMs: Date.parse('2024-05-01T11:59:59Z'),
      totalMs: 30_000,
      steps: [{ atMs: 6000, durationMs: 2000 }, { atMs: 6000 }],
    });
  });

  test('a step without a timestamp falls back to the total; a bad total or none is replay', () => {
    const steps = [step(0, { timestamp: '2024-05-01T12:00:00Z' }), step(1)];
    expect(trajectoryTiming(trajectory({ duration_s: 4 }, steps))).toMatchObject({
      kind: 'source-total-only',
      totalMs: 4000,
      steps: [{ atMs: 0 }, { atMs: 2000 }],
    });
    for (const duration_s of [-1, 'ten', null, Number.NaN])
      expect(trajectoryTiming(trajectory({ duration_s }, steps)).kind).toBe('replay');
    expect(trajectoryTiming(trajectory({}, [step(0, { timestamp: 'yesterday' })])).kind).toBe('replay');
  });

  test('total only, with a meta.started_at: that start; with no steps, the total still holds', () => {
    expect(
      trajectoryTiming(trajectory({ started_at: '2024-05-01T12:00:00.000Z', duration_s: 1.5 }, [])),
    ).toEqual({
      kind: 'source-total-only',
      startMs: Date.parse('2024-05-01T12:00:00Z'),
      totalMs: 1500,
      steps: [],
    });
  });
});

describe('anchor and clock', () => {
  const total = trajectoryTiming(trajectory({ duration_s: 3 }, [step(0), step(1), step(2)]));

  test('the anchor: the source start, else the stored session start (a resumed replay), else now', () => {
    const withStart = trajectoryTiming(trajectory({ started_at: '2024-05-01T12:00:00Z', duration_s: 1 }, []));
    expect(timingAnchor(withStart, '2026-01-01T00:00:00Z', 5)).toBe(Date.parse('2024-05-01T12:00:00Z'));
    expect(timingAnchor(total, '2026-01-01T00:00:00.000Z', 5)).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(timingAnchor(total, undefined, 5)).toBe(5);
  });

  test('the clock moves to each step, forward by a tool duration, never backwards', () => {
    const c = new ReplayClock(1000);
    expect(c.now()).toBe(1000);
    c.at(500);
    c.advance(200);
    expect(c.now()).toBe(1700);
    c.at(600);
    expect(c.now()).toBe(1700);
    c.advance(-5);
    expect(c.now()).toBe(1700);
  });

  test('replayTiming: the same trajectory gives the same times on every replay (stored start reused)', () => {
    const times = (stored?: string, now = 10_000) => {
      const r = replayTiming(trajectory({ duration_s: 3 }, [step(0), step(1), step(2)]), stored, () => now);
      const clock = r.clientOptions.clock!;
      const out = [clock()];
      for (let i = 0; i < 3; i++) {
        r.beforeStep(i);
        out.push(clock());
        r.duringTool(i);
        out.push(clock());
      }
      r.atEnd();
      out.push(clock());
      return { out, attributes: r.attributes };
    };
    const first = times();
    expect(first).toEqual({
      out: [10_000, 10_000, 10_000, 11_000, 11_000, 12_000, 12_000, 13_000],
      attributes: { timing: 'source-total-only' },
    });
    // Resumed later: anchored at the stored start, not at the new wall clock.
    expect(times(new Date(10_000).toISOString(), 99_999)).toEqual(first);
  });

  test('replayTiming without timing: no clock (the client keeps its own), attribute replay', () => {
    const r = replayTiming(trajectory({}, [step(0)]));
    expect(r.clientOptions).toEqual({});
    expect(r.attributes).toEqual({ timing: 'replay' });
  });
});
