import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailBlockedError,
  GuardrailUnavailableError,
  WardenClient,
  type ClientStats,
  type EventDataOf,
} from '@agent-warden/client';
import { outcomeScores } from './outcomes';
import type { TrajectoryIds } from './ids';
import { storedEvents, storedSession, type ServiceAccess, type StoredEvent } from './service';
import { keepStoredTimes } from './stored-times';
import { replayTiming } from './timing';
import { agentKeyOf, type Trajectory, type TrajectoryStep } from './trajectories';

/** Tool calls of one label and what enforce mode did with them. */
export interface LabelCounts {
  trajectories: number;
  toolCalls: number;
  blocked: number;
  heldForApproval: number;
}

/** What one trajectory's replay needs. */
export interface ReplayOneContext {
  /** Where the client sends (gateway or standalone). */
  baseUrl: string;
  apiKey: string;
  /** Where stored sessions are read (api or standalone). */
  read: ServiceAccess;
  mode: 'monitor' | 'enforce';
  /** Agent version string of this file's replay (deterministic). */
  version: string;
  /** Version metadata (the same on every run). */
  versionMetadata: Record<string, string>;
  /**
   * The tools of each agent of this file, by agent key (`toolNamesByAgent`): declared as the agent
   * version's capabilities, so the service knows the agent has tools even in a session that called none.
   * Absent: no capabilities are declared.
   */
  toolsByAgent?: ReadonlyMap<string, readonly string[]>;
  approvalWaitMs: number;
  /** The retrying fetch the client uses. */
  fetch: typeof fetch;
  /** Per-attempt timeout of the client's requests, ms (longer than the retry window). */
  requestTimeoutMs: number;
  /** Set on Ctrl-C: the client stops waiting for an unreachable service. */
  signal?: AbortSignal;
  stopped: Record<string, number>;
  byLabel: Record<string, LabelCounts>;
  /** Called once per tool call with what the replay did with it (see {@link ToolCallOutcome}). */
  onToolCall?: (call: ToolCallOutcome) => void;
}

/**
 * What happened to one tool call of a replayed trajectory: `ran` (the callback ran, with its logged
 * result or error), or why enforce mode stopped it: `blocked`, `approval_denied`, `approval_expired`
 * (held for approval and not answered within `approvalWaitMs`), `guard_unavailable` (fail closed).
 */
export interface ToolCallOutcome {
  trajectory: Trajectory;
  /** Index of the step in `trajectory.steps`. */
  position: number;
  step: TrajectoryStep;
  outcome: 'ran' | 'blocked' | 'approval_denied' | 'approval_expired' | 'guard_unavailable';
}

/** The outcome of one trajectory. */
export type TrajectoryOutcome =
  | { kind: 'skipped'; agentVersionId: string | null; events: number }
  | {
      kind: 'replayed';
      /** True when part of it was stored by an earlier, interrupted run. */
      resumed: boolean;
      agentVersionId?: string;
      /** Events still queued in the client when it gave up (service unreachable, Ctrl-C). */
      unsent: number;
      stats: ClientStats;
    };

/**
 * The label of a trajectory for guardrail figures: `<source>:<kind>` where kind is
 * `attack_succeeded` / `attack_failed` (AgentDojo runs with an injection, by whether the attacker's
 * goal was reached), `injection_goal_as_user_task` (the attacker's goal asked directly) or `benign`.
 */
export function labelOf(t: Trajectory): string {
  const source = t.trajectory_id.split('/')[0] ?? 'unknown';
  const l = t.labels as {
    is_injection_attack?: boolean;
    attack_succeeded?: boolean | null;
    user_task_is_injection_goal?: boolean;
  };
  const kind = l.user_task_is_injection_goal
    ? 'injection_goal_as_user_task'
    : l.is_injection_attack
      ? l.attack_succeeded
        ? 'attack_succeeded'
        : 'attack_failed'
      : 'benign';
  return `${source}:${kind}`;
}

type Evaluated = EventDataOf<'agent.guardrail.evaluated'>;

/**
 * Replays one trajectory through the TypeScript client with deterministic ids: one session, one
 * run with the task as `inputSummary`, each message as `agent.message.logged`, each tool call
 * through `withTool` with its logged result (or its logged error thrown), then the trajectory's
 * recorded outcome as scores on the session ({@link outcomeScores}).
 *
 * Resuming (docs/decisions.md "Replays resume from what the service stored"): a session the
 * service holds in full (ended, no holes) is skipped. A session held in part is replayed again
 * from the start with the same ids and, for the events it holds, their stored times (the service
 * keeps each event once per id and time: stored-times.ts); a tool call whose
 * `agent.guardrail.evaluated` event is stored is not evaluated again (that would record a second
 * evaluation): its stored evaluation is sent again under the same id and the call goes on as it
 * went then (run, or stopped when it was blocked in enforce mode).
 */
export async function replayOne(
  t: Trajectory,
  ids: TrajectoryIds,
  o: ReplayOneContext,
): Promise<TrajectoryOutcome> {
  const sessionId = ids.sessionId;
  const stored = await storedSession(o.read, sessionId);
  if (stored && stored.ended && stored.eventCount === stored.maxSequence)
    return { kind: 'skipped', agentVersionId: stored.agentVersionId, events: stored.eventCount };
  const held = stored ? await storedEvents(o.read, sessionId) : [];
  const before = earlierGuardEvents(held);
  // Events sent again keep the time they were stored with (the service's key holds the time).
  const sendFetch = keepStoredTimes(o.fetch, new Map(held.map((e) => [e.id, e.time])));

  const counts = (o.byLabel[labelOf(t)] ??= {
    trajectories: 0,
    toolCalls: 0,
    blocked: 0,
    heldForApproval: 0,
  });
  counts.trajectories += 1;
  const timing = replayTiming(t, stored?.startedAt);
  const client = new WardenClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    agent: { key: agentKeyOf(t.agent), name: t.agent },
    version: { version: o.version, metadata: o.versionMetadata },
    capabilities: o.toolsByAgent?.get(agentKeyOf(t.agent))?.map((name) => ({ name, kind: 'tool' as const })),
    mode: o.mode,
    flushIntervalMs: 1000,
    failMode: 'open',
    approvalTimeoutMs: o.approvalWaitMs,
    sessionId,
    idFactory: ids.next,
    fetch: sendFetch,
    requestTimeoutMs: o.requestTimeoutMs,
    // The retrying fetch already waits out an unreachable service; the client's own retries
    // (on top) only cover its per-attempt timeout.
    maxRetries: 2,
    logger: { warn: () => undefined, error: () => undefined },
    ...timing.clientOptions,
  });
  await client.ready().catch(() => undefined); // a failure is retried by the first flush
  client.startSession({
    inputSummary: t.task,
    attributes: { trajectoryId: t.trajectory_id, domain: t.domain, ...timing.attributes },
  });
  await client
    .withRun({ name: t.trajectory_id, inputSummary: t.task, runId: ids.runId }, async () => {
      for (const [position, step] of t.steps.entries()) {
        timing.beforeStep(position);
        if (step.kind === 'message') {
          client.trackMessage({ role: step.role, content: step.content ?? '' });
          continue;
        }
        counts.toolCalls += 1;
        const toolCallId = ids.toolCallId(position);
        const tool = {
          name: step.tool || '<empty-function-name>',
          arguments: step.arguments ?? {},
          toolCallId,
        };
        const run = () => {
          timing.duringTool(position);
          if (step.error) throw new Error(step.error);
          return step.result;
        };
        const earlier = before.get(toolCallId);
        if (earlier) {
          // Evaluated by the interrupted run: its guard events again under the same ids, and the call
          // goes on as it went then (evaluating it again would record a second evaluation).
          const outcome = resendGuardEvents(client, earlier);
          if (outcome === 'ran') await client.withTool({ ...tool, guard: false }, run).catch(() => undefined);
          else {
            count(o, counts, outcome);
            seenByTheLoggedAgent(client, step, tool);
          }
          o.onToolCall?.({ trajectory: t, position, step, outcome });
          continue;
        }
        let outcome: ToolCallOutcome['outcome'] = 'ran';
        try {
          await client.withTool(tool, run);
        } catch (err) {
          const reason =
            err instanceof GuardrailBlockedError
              ? 'blocked'
              : err instanceof ApprovalDeniedError
                ? 'approval_denied'
                : err instanceof ApprovalTimeoutError
                  ? 'approval_expired'
                  : err instanceof GuardrailUnavailableError
                    ? 'guard_unavailable'
                    : undefined;
          if (reason) {
            count(o, counts, reason);
            outcome = reason;
            seenByTheLoggedAgent(client, step, tool);
          }
          // Logged tool errors are part of the trajectory: recorded as agent.tool.failed, then go on.
        }
        o.onToolCall?.({ trajectory: t, position, step, outcome });
      }
      timing.atEnd();
    })
    .catch(() => undefined);
  // The trajectory's recorded outcome, as scores on the session (ids by position, like every event).
  for (const score of outcomeScores(t)) client.score(score);
  client.endSession({ status: 'completed' });
  await client.shutdown();
  // The service may have been unreachable past the retry window: try the rest until it is spent.
  while (client.stats().queued > 0 && !o.signal?.aborted) {
    const r = await client.flush();
    if (r.queued > 0 && r.sent === 0) break;
  }
  return {
    kind: 'replayed',
    resumed: stored !== undefined,
    agentVersionId: client.agentVersionId,
    unsent: client.stats().queued,
    stats: client.stats(),
  };
}

/** The guard events an earlier run stored for one tool call. */
interface EarlierGuardEvents {
  evaluated: Evaluated;
  requested?: StoredEvent;
  resolved?: StoredEvent;
}

/** Stored `agent.guardrail.evaluated` events by toolCallId, with their approval events (enforce mode). */
function earlierGuardEvents(events: StoredEvent[]): Map<string, EarlierGuardEvents> {
  const out = new Map<string, EarlierGuardEvents>();
  const byApproval = new Map<string, EarlierGuardEvents>();
  for (const e of events) {
    const d = e.data as { toolCallId?: string; approvalId?: string };
    if (e.type === 'agent.guardrail.evaluated' && d.toolCallId) {
      const g: EarlierGuardEvents = { evaluated: e.data as Evaluated };
      out.set(d.toolCallId, g);
      if (d.approvalId) byApproval.set(d.approvalId, g);
    } else if (e.type === 'agent.approval.requested' && d.approvalId) {
      const g = byApproval.get(d.approvalId);
      if (g) g.requested = e;
    } else if (e.type === 'agent.approval.resolved' && d.approvalId) {
      const g = byApproval.get(d.approvalId);
      if (g) g.resolved = e;
    }
  }
  return out;
}

/**
 * Sends a tool call's earlier guard events again in the order the client made them (evaluated, then
 * for an approval requested and resolved), so the events after them keep their positions and ids.
 * Returns what the call did: `ran`, or why it was stopped.
 */
function resendGuardEvents(client: WardenClient, g: EarlierGuardEvents): ToolCallOutcome['outcome'] {
  client.trackEvent('agent.guardrail.evaluated', g.evaluated);
  switch (g.evaluated.outcome) {
    case 'ran':
    case 'failed_open':
      return 'ran';
    case 'blocked':
      return 'blocked';
    case 'failed_closed':
      return 'guard_unavailable';
    default: {
      // awaiting_approval: requested, then resolved (expired when the interrupted run never saw it).
      const requestedId = client.trackEvent(
        'agent.approval.requested',
        (g.requested?.data ?? {
          approvalId: g.evaluated.approvalId,
          evaluationId: g.evaluated.evaluationId,
          toolCallId: g.evaluated.toolCallId,
        }) as EventDataOf<'agent.approval.requested'>,
      );
      const resolved = (g.resolved?.data ?? {
        approvalId: g.evaluated.approvalId,
        status: 'expired',
        comment: 'the replay was interrupted while waiting',
      }) as EventDataOf<'agent.approval.resolved'>;
      client.trackEvent('agent.approval.resolved', resolved, { parentId: requestedId });
      return resolved.status === 'approved'
        ? 'ran'
        : resolved.status === 'denied'
          ? 'approval_denied'
          : 'approval_expired';
    }
  }
}

/**
 * A call enforce mode stopped did not run, but the logged trajectory goes on as the logged agent ran
 * it, having read the call's logged result: the client is told so (`markUntrusted`, tool output of
 * that call), so the provenance of the later calls sees what the logged agent saw.
 */
function seenByTheLoggedAgent(
  client: WardenClient,
  step: TrajectoryStep,
  tool: { name: string; toolCallId: string },
): void {
  const text = step.error ?? step.result;
  if (text) client.markUntrusted(text, { toolName: tool.name, toolCallId: tool.toolCallId });
}

function count(o: ReplayOneContext, counts: LabelCounts, reason: string): void {
  o.stopped[reason] = (o.stopped[reason] ?? 0) + 1;
  if (reason === 'blocked') counts.blocked += 1;
  if (reason === 'approval_denied' || reason === 'approval_expired') counts.heldForApproval += 1;
}
