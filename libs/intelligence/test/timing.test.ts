import { IntelligenceDraft } from '@agent-warden/contracts';
import { analyseSession } from '../src';
import { buildNarrativeFacts } from '../src/narrative/facts';
import type { SessionInput } from '../src/types';
import { loadTrajectories, trajectoryToInput } from './support/trajectory-input';

/** A shared trajectory's input with the replay's `timing` session attribute (scripts/replay/timing.ts). */
function withTiming(timing: string | undefined): SessionInput {
  const t = loadTrajectories('swe_agent.jsonl')[0]!;
  const input = trajectoryToInput(t);
  const started = input.events.find((e) => e.type === 'agent.session.started')!;
  const data = started.data as { attributes?: Record<string, unknown> };
  data.attributes = { ...data.attributes, ...(timing === undefined ? {} : { timing }) };
  return input;
}

describe('replay timing in the figures and the summary', () => {
  test('a replay without the source timing: figures say replay, the summary gives no duration', () => {
    const out = analyseSession(withTiming('replay'));
    expect(IntelligenceDraft.safeParse(out).success).toBe(true);
    expect(out.summary.figures.timing).toBe('replay');
    expect(out.summary.text).not.toMatch(/ over \d/);
    expect(out.summary.text).toContain("the durations are the replay's, not the agent's");
    // The narrative's model is not given the replay's duration either.
    const facts = JSON.parse(buildNarrativeFacts(out, withTiming('replay'), 100_000).json);
    expect(facts.figures.timing).toBe('replay');
    expect(facts.figures).not.toHaveProperty('durationMs');
  });

  test.each(['source', 'source-total-only'])(
    'timing %s: the duration is the agent’s and stated',
    (timing) => {
      const out = analyseSession(withTiming(timing));
      expect(out.summary.figures.timing).toBe(timing);
      expect(out.summary.text).toMatch(/ over \d/);
      expect(out.summary.text).not.toContain('replay');
    },
  );

  test('a live session (no attribute) or an unknown value: no timing figure, duration stated', () => {
    for (const timing of [undefined, 'sundial']) {
      const out = analyseSession(withTiming(timing));
      expect(out.summary.figures).not.toHaveProperty('timing');
      expect(out.summary.text).toMatch(/ over \d/);
    }
  });
});
