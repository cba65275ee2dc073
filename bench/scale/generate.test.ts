import { newId, type AgentEvent } from '@agent-warden/contracts';
import type { Trajectory } from '../../scripts/replay/trajectories';
import { ScaleGenerator, type ScaleProject } from './generate';

/** Two small made-up trajectories (not the shared data): 2 messages + 2 tool calls, and 1 message + 1 failing call. */
const trajectories: Trajectory[] = [
  {
    trajectory_id: 't-1',
    agent: 'model-a @ Suite',
    task: 'Do the first thing',
    domain: 'd',
    n_steps: 4,
    n_tool_calls: 2,
    labels: { task_succeeded: true },
    meta: {},
    steps: [
      {
        index: 0,
        kind: 'message',
        role: 'user',
        content: 'please',
        tool: null,
        arguments: null,
        call_id: null,
        result: null,
        error: null,
        executed: null,
      },
      {
        index: 1,
        kind: 'tool_call',
        role: 'assistant',
        content: null,
        tool: 'lookup',
        arguments: { q: 'x' },
        call_id: 'c1',
        result: 'found',
        error: null,
        executed: true,
      },
      {
        index: 2,
        kind: 'tool_call',
        role: 'assistant',
        content: null,
        tool: 'write',
        arguments: { path: 'p' },
        call_id: 'c2',
        result: 'ok',
        error: null,
        executed: true,
      },
      {
        index: 3,
        kind: 'message',
        role: 'assistant',
        content: 'done',
        tool: null,
        arguments: null,
        call_id: null,
        result: null,
        error: null,
        executed: null,
      },
    ],
  },
  {
    trajectory_id: 't-2',
    agent: 'model-b @ Suite',
    task: 'Do the second thing',
    domain: 'd',
    n_steps: 2,
    n_tool_calls: 1,
    labels: { task_succeeded: false },
    meta: {},
    steps: [
      {
        index: 0,
        kind: 'message',
        role: 'assistant',
        content: 'trying',
        tool: null,
        arguments: null,
        call_id: null,
        result: null,
        error: null,
        executed: null,
      },
      {
        index: 1,
        kind: 'tool_call',
        role: 'assistant',
        content: null,
        tool: 'run',
        arguments: {},
        call_id: 'c3',
        result: null,
        error: 'boom',
        executed: true,
      },
    ],
  },
];

function project(weight: number, guarded: boolean): ScaleProject {
  const agent = () => ({ agentId: newId(), versionIds: [newId(), newId()] });
  return {
    projectId: newId(),
    weight,
    guarded,
    agents: new Map([
      ['model-a-suite', agent()],
      ['model-b-suite', agent()],
    ]),
  };
}

function generate(total: number, bigSessionEvents = 0, guarded = false) {
  const projects = [project(3, guarded), project(1, false)];
  const now = new Date('2026-11-24T12:00:00Z');
  const gen = new ScaleGenerator(trajectories, { projects, days: 90, now, seed: 1, bigSessionEvents }, total);
  const events: AgentEvent[] = [];
  const byProject = new Map<string, number>();
  const evaluations = [];
  for (let b = gen.next(7); b.events.length > 0; b = gen.next(7)) {
    for (const e of b.events) {
      events.push(e.event);
      byProject.set(e.projectId, (byProject.get(e.projectId) ?? 0) + 1);
    }
    evaluations.push(...b.evaluations);
  }
  return { gen, events, evaluations, projects, now, byProject };
}

const bySession = (events: AgentEvent[]) => {
  const m = new Map<string, AgentEvent[]>();
  for (const e of events) m.set(e.sessionId, [...(m.get(e.sessionId) ?? []), e]);
  return m;
};

describe('ScaleGenerator (bench:scale data set)', () => {
  test('emits exactly the number of events asked for, with unique ids', () => {
    for (const total of [1, 13, 1_000, 4_321]) {
      const { gen, events } = generate(total);
      expect(events).toHaveLength(total);
      expect(gen.produced).toBe(total);
      expect(new Set(events.map((e) => e.id)).size).toBe(total);
      expect(gen.next(10).events).toHaveLength(0);
    }
  });

  test('each clone keeps its trajectory’s shape under new session, run and tool call ids', () => {
    const { events } = generate(2_000);
    const sessions = [...bySession(events).values()].slice(0, -1); // the last one may be cut short
    expect(sessions.length).toBeGreaterThan(50);
    const shapes = new Set(sessions.map((s) => s.map((e) => e.type).join(',')));
    expect(shapes).toEqual(
      new Set([
        [
          'agent.session.started',
          'agent.run.started',
          'agent.message.logged',
          'agent.tool.started',
          'agent.tool.completed',
          'agent.tool.started',
          'agent.tool.completed',
          'agent.llm.called',
          'agent.message.logged',
          'agent.run.completed',
          'agent.session.ended',
        ].join(','),
        [
          'agent.session.started',
          'agent.run.started',
          'agent.llm.called',
          'agent.message.logged',
          'agent.tool.started',
          'agent.tool.failed',
          'agent.run.completed',
          'agent.session.ended',
        ].join(','),
      ]),
    );
    for (const s of sessions) {
      expect(s.map((e) => e.sequence)).toEqual(s.map((_, i) => i + 1));
      const times = s.map((e) => Date.parse(e.time));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(new Set(s.map((e) => `${e.agentId}|${e.agentVersionId}`)).size).toBe(1);
    }
    const runIds = events.filter((e) => e.type === 'agent.run.started').map((e) => e.runId);
    expect(new Set(runIds).size).toBe(runIds.length);
    const toolCallIds = events
      .filter((e) => e.type === 'agent.tool.started')
      .map((e) => (e.data as { toolCallId: string }).toolCallId);
    expect(new Set(toolCallIds).size).toBe(toolCallIds.length);
    const failed = sessions.filter((s) => s.some((e) => e.type === 'agent.tool.failed'));
    expect(failed.every((s) => (s.at(-1)!.data as { status: string }).status === 'failed')).toBe(true);
  });

  test('spreads sessions over the projects by weight and over the time window', () => {
    const { events, projects, now, byProject } = generate(20_000);
    const main = byProject.get(projects[0]!.projectId)!;
    expect(main / events.length).toBeGreaterThan(0.65);
    expect(main / events.length).toBeLessThan(0.85);
    const times = events.map((e) => Date.parse(e.time));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(now.getTime() - 90 * 86_400_000);
    expect(Math.max(...times)).toBeLessThanOrEqual(now.getTime());
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(80 * 86_400_000);
  });

  test('a long session comes first with exactly the events asked for, ended', () => {
    const { gen, events } = generate(3_000, 1_000);
    const big = events.slice(0, 1_000);
    expect(new Set(big.map((e) => e.sessionId))).toEqual(new Set([gen.bigSessionId]));
    expect(events[1_000]!.sessionId).not.toBe(gen.bigSessionId);
    expect(big[0]!.type).toBe('agent.session.started');
    expect(big[999]!.type).toBe('agent.session.ended');
    expect(
      new Set(big.filter((e) => e.type === 'agent.run.started').map((e) => e.runId)).size,
    ).toBeGreaterThan(50);
  });

  test('a guarded project evaluates every tool call that ran, once, before it', () => {
    const { events, evaluations, projects } = generate(5_000, 0, true);
    const guarded = projects[0]!.projectId;
    const evaluated = events.filter((e) => e.type === 'agent.guardrail.evaluated');
    expect(evaluations).toHaveLength(evaluated.length);
    expect(evaluations.every((v) => v.projectId === guarded)).toBe(true);
    const byCall = new Map(evaluations.map((v) => [v.toolCallId, v]));
    expect(byCall.size).toBe(evaluations.length);
    const ownSessions = new Set(evaluations.map((v) => v.sessionId));
    for (const e of events.filter((x) => x.type === 'agent.tool.started' && ownSessions.has(x.sessionId))) {
      const v = byCall.get((e.data as { toolCallId: string }).toolCallId);
      expect(v).toBeDefined();
      expect(v!.effectiveDecision).not.toBe('block');
      expect(Date.parse(v!.evaluatedAt)).toBeLessThan(Date.parse(e.time));
    }
    const blocked = evaluations.filter((v) => v.effectiveDecision === 'block');
    const startedCalls = new Set(
      events
        .filter((e) => e.type === 'agent.tool.started')
        .map((e) => (e.data as { toolCallId: string }).toolCallId),
    );
    expect(blocked.every((v) => !startedCalls.has(v.toolCallId!))).toBe(true);
    expect(evaluations.some((v) => v.provenance !== null)).toBe(true);
  });
});
