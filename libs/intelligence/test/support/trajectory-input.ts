import { effectiveDecision, newId, type Mode } from '@agent-warden/contracts';
import { createEngine, type StoredPolicy } from '@agent-warden/policy';
import { agentKeyOf, type Trajectory } from '../../../../scripts/replay/trajectories';
import type { AnalysisEvent, AnalysisRun, SessionInput } from '../../src/types';

export {
  loadTrajectories,
  type Trajectory,
  type TrajectoryStep,
} from '../../../../scripts/replay/trajectories';

/** The three shared files (in `TRAJECTORIES_DIR` of scripts/replay/trajectories.ts). */
export const TRAJECTORY_FILES = ['agentdojo.jsonl', 'tau_bench_airline.jsonl', 'swe_agent.jsonl'] as const;

/** Options of {@link trajectoryToInput}. */
export interface TrajectoryInputOptions {
  /** Mode of the guarded calls (default `monitor`, as the replay). */
  mode?: Mode;
  /** Policies the guarded calls are evaluated against (default none: every call `allow`). */
  policies?: StoredPolicy[];
  /** Id factory (default `newId`, UUIDv7). */
  ids?: () => string;
  /** Time of the first event (default 2025-01-01T00:00:00.000Z); each next event is 10 ms later. */
  startTime?: string;
  /** Sequence numbers to leave out, as if those events were lost on the way. */
  drop?: ReadonlySet<number>;
  /**
   * The tools the agent version declared (`session.agentTools`), as the replay declares them
   * (`toolNamesByAgent`); default none declared (`null`).
   */
  agentTools?: string[] | null;
}

/**
 * Turns a trajectory into the input the analysers get, with the events the replay
 * (scripts/replay/replay.ts) sends through the TypeScript client: `agent.session.started`
 * (inputSummary = task), `agent.run.started`, `agent.message.logged` per message step, per tool
 * step `agent.guardrail.evaluated` then `agent.tool.started` (arguments) and
 * `agent.tool.completed` (result) or `agent.tool.failed` (error); in enforce mode a `block` stops
 * the call, a `require_approval` emits `agent.approval.requested` / `resolved` (`expired`: nobody
 * approves during a replay) and stops it; then `agent.run.completed` and `agent.session.ended`.
 * Pure apart from the ids.
 */
export function trajectoryToInput(t: Trajectory, options: TrajectoryInputOptions = {}): SessionInput {
  const ids = options.ids ?? newId;
  const mode = options.mode ?? 'monitor';
  const engine = createEngine(options.policies ?? []);
  const t0 = Date.parse(options.startTime ?? '2025-01-01T00:00:00.000Z');
  const sessionId = ids();
  const runId = ids();
  const events: AnalysisEvent[] = [];
  let sequence = 0;
  const emit = (
    type: AnalysisEvent['type'],
    data: Record<string, unknown>,
    parentId: string | null = null,
  ) => {
    sequence += 1;
    const e: AnalysisEvent = {
      id: ids(),
      type,
      time: new Date(t0 + sequence * 10).toISOString(),
      sequence,
      runId: type === 'agent.session.started' || type === 'agent.session.ended' ? null : runId,
      parentId,
      data: JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
    };
    events.push(e);
    return e;
  };
  const approvals: SessionInput['approvals'] = [];
  const evaluations: SessionInput['evaluations'] = [];

  emit('agent.session.started', {
    inputSummary: t.task,
    attributes: { trajectoryId: t.trajectory_id, domain: t.domain },
  });
  const runStarted = emit('agent.run.started', { name: t.trajectory_id, inputSummary: t.task });
  for (const step of t.steps) {
    if (step.kind === 'message') {
      emit('agent.message.logged', { role: step.role, content: step.content ?? '' });
      continue;
    }
    const toolName = step.tool || '<empty-function-name>';
    const args = step.arguments ?? {};
    const toolCallId = ids();
    const r = engine.evaluate(
      { tool: { name: toolName }, action: { name: toolName }, arguments: args },
      mode,
    );
    const effective = mode === 'monitor' ? effectiveDecision(r.policyDecision, 'monitor') : r.policyDecision;
    const evaluationId = ids();
    const outcome =
      effective === 'block' ? 'blocked' : effective === 'require_approval' ? 'awaiting_approval' : 'ran';
    const approvalId = outcome === 'awaiting_approval' ? ids() : undefined;
    const evaluation = {
      evaluationId,
      toolCallId,
      toolName,
      mode,
      policyDecision: r.policyDecision,
      effectiveDecision: effective,
      matchedGuardrails: r.matchedGuardrails,
      wouldBlock: r.wouldBlock,
      wouldRequireApproval: r.wouldRequireApproval,
    };
    const evaluated = emit('agent.guardrail.evaluated', { ...evaluation, approvalId, outcome });
    evaluations.push({ ...evaluation, evaluatedAt: evaluated.time });
    if (outcome === 'blocked') continue;
    if (approvalId) {
      const expiresAt = new Date(Date.parse(evaluated.time) + 1000).toISOString();
      const requested = emit('agent.approval.requested', { approvalId, evaluationId, toolCallId, expiresAt });
      emit('agent.approval.resolved', { approvalId, status: 'expired', waitedMs: 1000 }, requested.id);
      approvals.push({
        id: approvalId,
        evaluationId,
        toolName,
        status: 'expired',
        createdAt: evaluated.time,
        expiresAt,
        decidedAt: expiresAt,
        decidedBy: null,
      });
      continue;
    }
    const started = emit('agent.tool.started', { toolCallId, toolName, arguments: args });
    if (step.error) {
      emit(
        'agent.tool.failed',
        { toolCallId, toolName, error: { message: step.error, type: 'Error' }, durationMs: 0 },
        started.id,
      );
    } else {
      emit('agent.tool.completed', { toolCallId, toolName, result: step.result, durationMs: 0 }, started.id);
    }
  }
  const runCompleted = emit(
    'agent.run.completed',
    { status: 'succeeded', durationMs: sequence * 10 },
    runStarted.id,
  );
  emit('agent.session.ended', { status: 'completed' });

  const kept = options.drop ? events.filter((e) => !options.drop?.has(e.sequence)) : events;
  const run: AnalysisRun = {
    id: runId,
    name: t.trajectory_id,
    status: 'succeeded',
    inputSummary: t.task,
    outputSummary: null,
    error: null,
    startedAt: runStarted.time,
    endedAt: runCompleted.time,
  };
  const first = events[0] as AnalysisEvent;
  const last = events[events.length - 1] as AnalysisEvent;
  return {
    session: {
      id: sessionId,
      projectId: '00000000-0000-7000-8000-000000000000',
      agentId: '00000000-0000-7000-8000-000000000001',
      agentKey: agentKeyOf(t.agent),
      status: 'completed',
      inputSummary: t.task,
      startedAt: first.time,
      endedAt: last.time,
      lastEventAt: last.time,
      eventCount: kept.length,
      maxSequence: sequence,
      agentTools: options.agentTools ?? null,
    },
    runs: [run],
    events: kept,
    approvals,
    evaluations,
  };
}

/** A deterministic UUIDv7-shaped id factory (for example outputs that do not change between runs). */
export function sequentialIds(seed = 0): () => string {
  let n = seed;
  return () => {
    n += 1;
    const hex = n.toString(16).padStart(12, '0');
    return `01936b2a-0000-7000-8000-${hex}`;
  };
}
