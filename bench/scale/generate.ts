import { newId, type AgentEvent, type Decision, type EvaluationRecord } from '@agent-warden/contracts';
import type { ProjectedEvent } from '@agent-warden/db';
import { agentKeyOf, type Trajectory, type TrajectoryStep } from '../../scripts/replay/trajectories';
import { toolEndEvent, type EventFields } from '../lib/workload';

const DAY = 86_400_000;
/** Time between two events of a session, ms (plus up to the same again at random). */
const STEP_MS = 1_500;

/** An identified agent of one project and its versions. */
export interface ScaleAgent {
  agentId: string;
  versionIds: string[];
}

/** One project of the generated data set. */
export interface ScaleProject {
  projectId: string;
  /** Relative share of the sessions (any positive number; shares are normalised). */
  weight: number;
  /** Agents by agent key ({@link agentKeyOf} of the trajectory's `agent`); every key of the trajectories must be present. */
  agents: Map<string, ScaleAgent>;
  /**
   * Guarded: every tool call is evaluated first, as a client with the guard does — one
   * `agent.guardrail.evaluated` event before the call plus one guardrail evaluation record; a
   * blocked call has no tool events (its callback did not run).
   */
  guarded: boolean;
}

/** How the events are spread. */
export interface ScaleLayout {
  projects: ScaleProject[];
  /** Sessions start uniformly over this many days before `now`. */
  days: number;
  now: Date;
  /** PRNG seed: the same seed gives the same shape (ids are fresh UUIDv7s every time). */
  seed: number;
  /**
   * One long session of exactly this many events (trajectories replayed as consecutive runs),
   * in the first project, emitted first. 0: none.
   */
  bigSessionEvents: number;
}

/** One write: the events and guardrail evaluation records the projector would get in a batch. */
export interface ScaleBatch {
  events: ProjectedEvent[];
  evaluations: EvaluationRecord[];
}

interface Item {
  event: ProjectedEvent;
  evaluation?: EvaluationRecord;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The model part of a logged agent name (`gpt-4o @ tau-bench (…)` → `gpt-4o`). */
function modelOf(agent: string): string {
  return (agent.split(' @ ')[0] ?? agent).trim().slice(0, 200) || 'unknown';
}

/** A rough token count of text (4 characters a token). */
const tokens = (chars: number) => Math.max(1, Math.round(chars / 4));

/**
 * The data set of `npm run bench:scale`: exactly `total` agent events made from the shared
 * trajectories, each trajectory cloned again and again as a new session (fresh UUIDv7 ids),
 * spread over the projects by weight, over each project's agents (by the trajectory's agent) and
 * their versions at random, with session start times uniform over the last `days` days. Event
 * shapes are the TypeScript client's (as `bench/lib/workload.ts`): session and run started,
 * one `agent.llm.called` (GenAI fields, tokens estimated from the text) before each assistant
 * message, `agent.message.logged`, tool started + completed / failed, run completed, session
 * ended (`failed` when the trajectory's logged outcome says so). Guarded projects add guard
 * evaluations (see {@link ScaleProject.guarded}): decisions 96 % allow, 2.5 % warn, 1 % block,
 * 0.5 % require approval, a quarter of them with provenance. The last session may be cut short so
 * that the count is exact.
 */
export class ScaleGenerator {
  private readonly items: Iterator<Item>;
  private readonly random: () => number;
  private readonly cumulative: number[];
  private emitted = 0;
  /** Id of the long session ({@link ScaleLayout.bigSessionEvents}), once emitted. */
  bigSessionId: string | undefined;
  /** Sessions begun so far. */
  sessions = 0;

  constructor(
    private readonly trajectories: Trajectory[],
    private readonly layout: ScaleLayout,
    readonly total: number,
  ) {
    if (trajectories.length === 0) throw new Error('no trajectories to clone');
    if (layout.projects.length === 0) throw new Error('no projects');
    for (const p of layout.projects)
      for (const t of trajectories)
        if (!p.agents.has(agentKeyOf(t.agent)))
          throw new Error(`project ${p.projectId} has no agent ${agentKeyOf(t.agent)}`);
    const sum = layout.projects.reduce((a, p) => a + p.weight, 0);
    let acc = 0;
    this.cumulative = layout.projects.map((p) => (acc += p.weight / sum));
    this.random = prng(layout.seed);
    this.items = this.generate();
  }

  /** Events emitted so far. */
  get produced(): number {
    return this.emitted;
  }

  /** The next batch of up to `max` events (fewer only at the end; empty when all `total` are out). */
  next(max: number): ScaleBatch {
    const events: ProjectedEvent[] = [];
    const evaluations: EvaluationRecord[] = [];
    while (events.length < max && this.emitted < this.total) {
      const it = this.items.next().value as Item;
      events.push(it.event);
      if (it.evaluation) evaluations.push(it.evaluation);
      this.emitted += 1;
    }
    return { events, evaluations };
  }

  private pickProject(): ScaleProject {
    const r = this.random();
    const i = this.cumulative.findIndex((c) => r < c);
    return this.layout.projects[i < 0 ? this.layout.projects.length - 1 : i]!;
  }

  private *generate(): Generator<Item> {
    if (this.layout.bigSessionEvents > 0) yield* this.bigSession();
    for (;;)
      for (const t of this.trajectories) {
        const project = this.pickProject();
        yield* this.session(project, [t]);
      }
  }

  private *bigSession(): Generator<Item> {
    const project = this.layout.projects[0]!;
    const n = this.layout.bigSessionEvents;
    const all = this.session(project, { [Symbol.iterator]: () => this.cycle() });
    let count = 0;
    for (const item of all) {
      count += 1;
      if (count === n) {
        // The last event ends the session, whatever came before.
        const e = item.event.event;
        yield {
          event: {
            projectId: project.projectId,
            event: {
              ...e,
              type: 'agent.session.ended',
              runId: undefined,
              parentId: undefined,
              data: { status: 'completed' },
            } as AgentEvent,
          },
        };
        return;
      }
      yield item;
    }
  }

  /** The trajectories round robin, endlessly. */
  private *cycle(): Generator<Trajectory> {
    for (;;) yield* this.trajectories;
  }

  /** One session of `project` replaying `runs` (one run each), of the first run's agent. */
  private *session(project: ScaleProject, runs: Iterable<Trajectory>): Generator<Item> {
    const random = this.random;
    const iter = runs[Symbol.iterator]();
    const first = iter.next().value as Trajectory;
    const agent = project.agents.get(agentKeyOf(first.agent))!;
    const versionId = agent.versionIds[Math.floor(random() * agent.versionIds.length)]!;
    const sessionId = newId();
    this.sessions += 1;
    if (this.layout.bigSessionEvents > 0 && this.bigSessionId === undefined) this.bigSessionId = sessionId;
    const approxLen = 4 + first.steps.length * 3;
    const span = this.layout.days * DAY;
    let time =
      this.layout.now.getTime() - span + Math.floor(random() * Math.max(0, span - approxLen * STEP_MS * 2));
    let sequence = 0;
    const base = { sessionId, agentId: agent.agentId, agentVersionId: versionId };
    const make = (fields: EventFields) => {
      time += STEP_MS + Math.floor(random() * STEP_MS);
      return {
        id: newId(),
        time: new Date(time).toISOString(),
        ...base,
        sequence: (sequence += 1),
        ...fields,
      } as AgentEvent;
    };
    const wrap = (event: AgentEvent, evaluation?: EvaluationRecord): Item => ({
      event: { projectId: project.projectId, event },
      ...(evaluation && { evaluation }),
    });

    yield wrap(
      make({
        type: 'agent.session.started',
        data: {
          inputSummary: first.task,
          attributes: { trajectoryId: first.trajectory_id, domain: first.domain },
        },
      }),
    );
    let failed = false;
    for (let t: Trajectory | undefined = first; t; t = iter.next().value as Trajectory | undefined) {
      failed ||= outcomeFailed(t);
      const runId = newId();
      const runStarted = make({
        type: 'agent.run.started',
        runId,
        data: { name: t.trajectory_id.slice(0, 200), inputSummary: t.task },
      });
      yield wrap(runStarted);
      let context = t.task.length;
      let lastTool: { toolCallId: string; toolName: string } | undefined;
      for (const step of t.steps) {
        if (step.kind === 'message') {
          const content = step.content ?? '';
          if (step.role === 'assistant') {
            const ev = make({
              type: 'agent.llm.called',
              runId,
              data: {
                llmCallId: newId(),
                operation: 'chat',
                model: modelOf(t.agent),
                inputTokens: Math.min(tokens(context), 2_000_000),
                outputTokens: tokens(content.length),
                durationMs: 200 + Math.floor(random() * 3_000),
                finishReasons: ['stop'],
              },
            });
            yield wrap(ev);
          }
          context += content.length;
          yield wrap(make({ type: 'agent.message.logged', runId, data: { role: step.role, content } }));
          continue;
        }
        const toolCallId = newId();
        const toolName = step.tool || '<empty-function-name>';
        if (project.guarded) {
          const g = this.guard(project, base, runId, toolCallId, toolName, step, lastTool, make);
          yield wrap(g.event, g.evaluation);
          if (g.evaluation.effectiveDecision === 'block') continue;
        }
        const started = make({
          type: 'agent.tool.started',
          runId,
          data: { toolCallId, toolName, arguments: step.arguments ?? {} },
        });
        yield wrap(started);
        context += (step.result ?? step.error ?? '').length;
        lastTool = { toolCallId, toolName };
        yield wrap(toolEndEvent(make, step, { runId, startedId: started.id, toolCallId, toolName }));
      }
      yield wrap(
        make({
          type: 'agent.run.completed',
          runId,
          parentId: runStarted.id,
          data: { status: outcomeFailed(t) ? 'failed' : 'succeeded', durationMs: 1000 },
        }),
      );
    }
    yield wrap(make({ type: 'agent.session.ended', data: { status: failed ? 'failed' : 'completed' } }));
  }

  /** The guard's evaluation of one tool call: the client's event and the gateway's record. */
  private guard(
    project: ScaleProject,
    base: { sessionId: string; agentId: string; agentVersionId: string },
    runId: string,
    toolCallId: string,
    toolName: string,
    step: TrajectoryStep,
    lastTool: { toolCallId: string; toolName: string } | undefined,
    make: (fields: Pick<AgentEvent, 'type' | 'data'> & { runId?: string }) => AgentEvent,
  ): { event: AgentEvent; evaluation: EvaluationRecord } {
    const r = this.random();
    const decision: Decision =
      r < 0.96 ? 'allow' : r < 0.985 ? 'warn' : r < 0.995 ? 'block' : 'require_approval';
    // Approvals are not simulated: a require_approval call is treated as allowed by the client.
    const effective: Decision = decision === 'require_approval' ? 'allow' : decision;
    const matched =
      decision === 'allow'
        ? []
        : [{ policyId: newId(), name: `scale-${decision}`, version: 1, decision, reason: 'bench rule' }];
    const args = step.arguments ?? {};
    const firstArg = Object.keys(args)[0];
    const provenance =
      lastTool && firstArg && this.random() < 0.25
        ? {
            arguments: [
              {
                path: firstArg,
                origin: 'tool' as const,
                tainted: true,
                instructed: false,
                sources: [
                  { toolName: lastTool.toolName, toolCallId: lastTool.toolCallId, instructions: false },
                ],
              },
            ],
            session: { untrustedInstructions: 0 },
            truncated: false,
          }
        : null;
    // What the client's event and the gateway's evaluation record both carry.
    const decided = {
      evaluationId: newId(),
      toolCallId,
      mode: 'enforce' as const,
      policyDecision: decision,
      effectiveDecision: effective,
      matchedGuardrails: matched,
      wouldBlock: decision === 'block',
      wouldRequireApproval: decision === 'require_approval',
    };
    const event = make({
      type: 'agent.guardrail.evaluated',
      runId,
      data: { ...decided, toolName, outcome: effective === 'block' ? 'blocked' : 'ran' },
    });
    const evaluation: EvaluationRecord = {
      ...decided,
      projectId: project.projectId,
      agentId: base.agentId,
      agentVersionId: base.agentVersionId,
      sessionId: base.sessionId,
      runId,
      dryRun: false,
      approvalId: null,
      input: { action: { type: 'tool_call', name: toolName }, tool: { name: toolName }, arguments: args },
      provenance,
      evaluatedAt: event.time,
    };
    return { event, evaluation };
  }
}

/** Whether the trajectory's logged outcome is a failure (tau-bench reward 0, AgentDojo user task not done). */
function outcomeFailed(t: Trajectory): boolean {
  const l = t.labels ?? {};
  return l.reward === 0 || l.task_succeeded === false || l.user_task_succeeded === false;
}
