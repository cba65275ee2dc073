import { newId, type Decision } from '@agent-warden/contracts';
import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailBlockedError,
  GuardrailUnavailableError,
  WardenClient,
} from '@agent-warden/client';
import { agentKeyOf, readTrajectories, type Trajectory } from './trajectories';

/** Options of {@link replayFiles}. */
export interface ReplayOptions {
  files: string[];
  baseUrl: string;
  apiKey: string;
  mode?: 'monitor' | 'enforce';
  /** Trajectories replayed at once (default 8). */
  concurrency?: number;
  /** Stop after this many trajectories (all by default). */
  limit?: number;
  /** Longest wait for the service to project everything, ms (default 120 000). */
  settleTimeoutMs?: number;
  /** Where to read the counts back (the api); default `baseUrl` (standalone serves both). */
  statsUrl?: string;
  /**
   * Enforce mode: how long the replay waits on an approval before counting the call as held
   * (client-side `approvalTimeoutMs`, default 1000 ms); nobody approves during a replay.
   */
  approvalWaitMs?: number;
  /** Called after each trajectory (progress). */
  onTrajectory?: (done: number) => void;
}

/** The replay's summary: counts read back from the service, not counted locally. */
export interface ReplaySummary {
  trajectories: number;
  events_sent: number;
  events_stored: number;
  duplicates: number;
  missing: number;
  decisions: Record<string, number>;
  /** Tool calls stopped by the client in enforce mode, by reason. */
  stopped: Record<string, number>;
  /** Per trajectory label (see {@link labelOf}): tool calls, and how many were blocked or held for approval. */
  byLabel: Record<string, LabelCounts>;
  /** Agent version ids this replay used (its events are counted through them). */
  agentVersionIds: string[];
  client: { dropped: number; failed: number; rejected: number; retries: number };
}

/** Tool calls of one label and what enforce mode did with them. */
export interface LabelCounts {
  trajectories: number;
  toolCalls: number;
  blocked: number;
  heldForApproval: number;
}

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

interface Stats {
  events: number;
  sessions: number;
  duplicates: number;
  byType: Record<string, number>;
  decisions: Record<string, number>;
}

/** Everything projected: every accepted event, and an evaluation row for every evaluated event. */
function settled(s: Stats, sent: number): boolean {
  const evaluations = Object.values(s.decisions).reduce((a, b) => a + b, 0);
  return s.events >= sent && evaluations >= (s.byType['agent.guardrail.evaluated'] ?? 0);
}

async function fetchStats(baseUrl: string, apiKey: string, versions: string[]): Promise<Stats> {
  const url = `${baseUrl}/v1/stats/events?agentVersionId=${encodeURIComponent(versions.join(','))}`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!res.ok) throw new Error(`GET /v1/stats/events answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Stats;
}

/**
 * Replays one trajectory through the TypeScript client: one session, one run with the task as
 * `inputSummary`, each message as `agent.message.logged`, each tool call through `withTool` with
 * its logged result (or its logged error thrown). Returns what the client sent.
 */
async function replayOne(
  t: Trajectory,
  o: ReplayOptions,
  replayId: string,
  stopped: Record<string, number>,
  byLabel: Record<string, LabelCounts>,
): Promise<{ sent: number; agentVersionId?: string; stats: ReturnType<WardenClient['stats']> }> {
  const counts = (byLabel[labelOf(t)] ??= { trajectories: 0, toolCalls: 0, blocked: 0, heldForApproval: 0 });
  counts.trajectories += 1;
  const client = new WardenClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    agent: { key: agentKeyOf(t.agent), name: t.agent },
    version: { version: `replay-${replayId}`, metadata: { replayId, source: t.trajectory_id.split('/')[0] } },
    mode: o.mode ?? 'monitor',
    flushIntervalMs: 1000,
    failMode: 'open',
    approvalTimeoutMs: o.approvalWaitMs ?? 1000,
  });
  await client.ready();
  client.startSession({
    inputSummary: t.task,
    attributes: { trajectoryId: t.trajectory_id, domain: t.domain },
  });
  await client
    .withRun({ name: t.trajectory_id, inputSummary: t.task }, async () => {
      for (const step of t.steps) {
        if (step.kind === 'message') {
          client.trackMessage({ role: step.role, content: step.content ?? '' });
          continue;
        }
        counts.toolCalls += 1;
        try {
          await client.withTool(
            { name: step.tool || '<empty-function-name>', arguments: step.arguments ?? {} },
            () => {
              if (step.error) throw new Error(step.error);
              return step.result;
            },
          );
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
          if (reason) stopped[reason] = (stopped[reason] ?? 0) + 1;
          if (reason === 'blocked') counts.blocked += 1;
          if (reason === 'approval_denied' || reason === 'approval_expired') counts.heldForApproval += 1;
          // Logged tool errors are part of the trajectory: recorded as agent.tool.failed, then go on.
        }
      }
    })
    .catch(() => undefined);
  client.endSession({ status: 'completed' });
  await client.shutdown();
  const stats = client.stats();
  return { sent: stats.sent, agentVersionId: client.agentVersionId, stats };
}

/**
 * Replays trajectory files through the service and waits until it has projected everything, then
 * reads the counts back from `GET /v1/stats/events` for this replay's agent versions.
 * `missing` = events the gateway accepted but the store does not hold; `duplicates` = stored events
 * sharing a (session, sequence) with another.
 */
export async function replayFiles(o: ReplayOptions): Promise<ReplaySummary> {
  const replayId = newId();
  const stopped: Record<string, number> = {};
  const byLabel: Record<string, LabelCounts> = {};
  const versions = new Set<string>();
  const totals = { sent: 0, dropped: 0, failed: 0, rejected: 0, retries: 0 };
  let trajectories = 0;
  const concurrency = o.concurrency ?? 8;
  const inFlight = new Set<Promise<void>>();

  const run = async (t: Trajectory) => {
    const r = await replayOne(t, o, replayId, stopped, byLabel);
    if (r.agentVersionId) versions.add(r.agentVersionId);
    totals.sent += r.sent;
    totals.dropped += r.stats.dropped;
    totals.failed += r.stats.failed;
    totals.rejected += r.stats.rejected;
    totals.retries += r.stats.retries;
    trajectories += 1;
    o.onTrajectory?.(trajectories);
  };

  let started = 0;
  outer: for (const file of o.files) {
    for await (const t of readTrajectories(file)) {
      if (o.limit !== undefined && started >= o.limit) break outer;
      started += 1;
      const p: Promise<void> = run(t).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);

  const ids = [...versions];
  const deadline = Date.now() + (o.settleTimeoutMs ?? 120_000);
  const statsUrl = o.statsUrl ?? o.baseUrl;
  let stats = await fetchStats(statsUrl, o.apiKey, ids);
  while (!settled(stats, totals.sent) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    stats = await fetchStats(statsUrl, o.apiKey, ids);
  }
  return {
    trajectories,
    events_sent: totals.sent,
    events_stored: stats.events,
    duplicates: stats.duplicates,
    missing: Math.max(0, totals.sent - stats.events),
    decisions: stats.decisions as Record<Decision, number>,
    stopped,
    byLabel,
    agentVersionIds: ids,
    client: {
      dropped: totals.dropped,
      failed: totals.failed,
      rejected: totals.rejected,
      retries: totals.retries,
    },
  };
}
