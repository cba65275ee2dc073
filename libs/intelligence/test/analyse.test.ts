import { IntelligenceDraft, type IntelligenceDraft as Draft } from '@agent-warden/contracts';
import { compilePolicy, evaluateOne, validatePolicy } from '@agent-warden/policy';
import { analyseSession, DATA_FLOW_KIND } from '../src';
import type { SessionInput } from '../src/types';
import {
  loadTrajectories,
  trajectoryToInput,
  TRAJECTORY_FILES,
  type Trajectory,
} from './support/trajectory-input';

/** Every shared trajectory, replayed as the replay sends it, and what the analysers made of it. */
const sessions: { t: Trajectory; input: SessionInput; out: Draft }[] = TRAJECTORY_FILES.flatMap((f) =>
  loadTrajectories(f).map((t) => {
    const input = trajectoryToInput(t);
    return { t, input, out: analyseSession(input) };
  }),
);

function citedIds(out: Draft): string[] {
  return [
    ...out.story.flatMap((m) => m.eventIds),
    ...out.actionItems.flatMap((a) => a.evidenceEventIds),
    ...out.recommendations.flatMap((r) => r.evidenceEventIds),
  ];
}

describe('analyseSession over all shared trajectories', () => {
  it('reads all 762 trajectories', () => {
    expect(sessions).toHaveLength(762);
  });

  it('cites only event ids of the session, and the output fits the contract', () => {
    const bad: string[] = [];
    for (const { t, input, out } of sessions) {
      const ids = new Set(input.events.map((e) => e.id));
      const unknown = citedIds(out).filter((id) => !ids.has(id));
      if (unknown.length > 0) bad.push(`${t.trajectory_id}: ${unknown.length} unknown ids`);
      const parsed = IntelligenceDraft.safeParse(out);
      if (!parsed.success) bad.push(`${t.trajectory_id}: ${parsed.error.message}`);
    }
    expect(bad).toEqual([]);
  });

  it('drafts only valid, disabled policies that match the calls they cite', () => {
    let count = 0;
    const bad: string[] = [];
    for (const { t, input, out } of sessions) {
      const started = new Map(
        input.events.filter((e) => e.type === 'agent.tool.started').map((e) => [e.id, e]),
      );
      for (const r of out.recommendations) {
        count += 1;
        const v = validatePolicy(r.policy);
        if (!v.ok) bad.push(`${t.trajectory_id}: ${JSON.stringify(v.errors)}`);
        if (r.policy.enabled !== false) bad.push(`${t.trajectory_id}: enabled`);
        // Backtest: the draft matches every tool call it cites as evidence.
        const compiled = compilePolicy({ ...r.policy, id: 'draft', version: 1, enabled: true });
        for (const id of r.evidenceEventIds) {
          const e = started.get(id);
          if (!e) continue;
          const name = String(e.data.toolName);
          const hit = evaluateOne(compiled, {
            tool: { name },
            action: { name },
            arguments: e.data.arguments as Record<string, unknown>,
          });
          if (!hit) bad.push(`${t.trajectory_id}: ${r.kind} does not match ${name}`);
        }
      }
    }
    expect(bad).toEqual([]);
    expect(count).toBeGreaterThan(100);
  });

  it('gives the figures the trajectories give when counted directly', () => {
    const bad: string[] = [];
    for (const { t, out } of sessions) {
      const calls = t.steps.filter((s) => s.kind === 'tool_call');
      const messages = t.steps.length - calls.length;
      const byTool: Record<string, { calls: number; failures: number }> = {};
      for (const s of calls) {
        const b = (byTool[s.tool || '<empty-function-name>'] ??= { calls: 0, failures: 0 });
        b.calls += 1;
        if (s.error) b.failures += 1;
      }
      const f = out.summary.figures;
      const expected = {
        runs: 1,
        events: 4 + messages + 3 * calls.length,
        toolCalls: calls.length,
        toolFailures: calls.filter((s) => s.error).length,
        toolCallsByTool: byTool,
        decisions: calls.length > 0 ? { allow: calls.length } : {},
        lostEvents: 0,
      };
      const actual = {
        runs: f.runs,
        events: f.events,
        toolCalls: f.toolCalls,
        toolFailures: f.toolFailures,
        toolCallsByTool: f.toolCallsByTool,
        decisions: f.decisions,
        lostEvents: f.lostEvents,
      };
      if (JSON.stringify(actual) !== JSON.stringify(expected)) bad.push(t.trajectory_id);
    }
    expect(bad).toEqual([]);
  });

  it('is deterministic: the same input gives the same output', () => {
    for (const { input, out } of sessions.slice(0, 50)) expect(analyseSession(input)).toEqual(out);
  });

  it('tells a story from start to end in sequence order, shorter than the call list on long sessions', () => {
    for (const { input, out } of sessions) {
      expect(out.story[0]?.kind).toBe('start');
      expect(out.story[out.story.length - 1]?.kind).toBe('end');
      const seq = new Map(input.events.map((e) => [e.id, e.sequence]));
      const firsts = out.story.map((m) => Math.min(...m.eventIds.map((id) => seq.get(id) ?? Infinity)));
      expect([...firsts].sort((a, b) => a - b)).toEqual(firsts);
    }
    const long = sessions.filter(({ t }) => t.steps.filter((s) => s.kind === 'tool_call').length >= 30);
    expect(long.length).toBeGreaterThan(0);
    for (const { t, out } of long) {
      expect(out.story.length).toBeLessThan(t.steps.filter((s) => s.kind === 'tool_call').length);
    }
  });

  it('flags no benign AgentDojo session with a high-severity data flow', () => {
    const benign = sessions.filter(
      ({ t }) => t.trajectory_id.startsWith('agentdojo/') && !t.labels.is_injection_attack,
    );
    const flagged = benign.filter(({ out }) =>
      out.recommendations.some((r) => r.kind === DATA_FLOW_KIND && r.severity === 'high'),
    );
    expect(benign.length).toBeGreaterThan(150);
    expect(flagged.map(({ t }) => t.trajectory_id)).toEqual([]);
  });
});
