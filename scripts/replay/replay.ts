import type { Decision } from '@agent-warden/contracts';
import { TrajectoryIds } from './ids';
import {
  replayOne,
  type LabelCounts,
  type ReplayOneContext,
  type ToolCallOutcome,
  type TrajectoryOutcome,
} from './replay-one';
import { retryingFetch, sleep, type RetryNotice } from './retry';
import { fetchStats, identifyProject, type ServiceAccess, type Stats } from './service';
import {
  agentKeyOf,
  readTrajectoryLines,
  scanFile,
  toolNamesByAgentInFile,
  type Trajectory,
} from './trajectories';

export { labelOf, type LabelCounts, type ToolCallOutcome } from './replay-one';

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
  /**
   * How long one request keeps being retried while the service is unreachable or answers 408 / 429 /
   * 5xx, ms (default 300 000): a restart of the service is waited out.
   */
  retryForMs?: number;
  /**
   * Part of every id (default empty): the same file under another namespace is replayed as new data
   * instead of being completed and deduplicated.
   */
  namespace?: string;
  /** Aborted on Ctrl-C: no new trajectory starts, retries stop, the summary is still made. */
  signal?: AbortSignal;
  /** Called after each trajectory (replayed or skipped) with how many are done. */
  onTrajectory?: (done: number) => void;
  /** Progress (after each trajectory, and while the service is being waited for). */
  onProgress?: (p: ReplayProgress) => void;
  /**
   * Called once per tool call replayed in this run with what happened to it (not for trajectories
   * skipped because the service already held them: use a fresh `namespace` to see every call).
   */
  onToolCall?: (call: ToolCallOutcome) => void;
}

/** What {@link ReplayOptions.onProgress} receives. */
export interface ReplayProgress {
  done: number;
  /** Trajectories this run will go through (lines of the files, or `limit`). */
  total: number;
  /** Of `done`, those the service already held in full. */
  skipped: number;
  /** Events the service accepted so far in this run. */
  eventsSent: number;
  /** Set while a request is being retried: what and why. */
  waiting?: RetryNotice;
}

/**
 * The replay's summary. `events_stored`, `duplicates` and `decisions` are read back from the
 * service (`GET /v1/stats/events` for the replay's agent versions), never counted locally; they
 * are `null` when the read-back failed (the service unreachable after Ctrl-C).
 */
export interface ReplaySummary {
  /** Trajectories gone through: replayed in this run or found complete. */
  trajectories: number;
  /** Of them, found stored in full by an earlier run and skipped. */
  skipped: number;
  /** Of them, found stored in part (an interrupted run) and completed. */
  resumed: number;
  /** Events the service accepted in this run (2xx), resent ones of resumed trajectories included. */
  events_sent: number;
  /** Events the replay's trajectories should have in the store: `events_sent` + those of skipped ones. */
  events_expected: number;
  events_stored: number | null;
  /** Stored events sharing a (session, sequence) with another (the same logical event twice). */
  duplicates: number | null;
  /** `events_expected − events_stored` (≥ 0): acknowledged events the store does not hold. */
  missing: number | null;
  /** Events never acknowledged (still queued when the service stayed down or Ctrl-C came). */
  events_unsent: number;
  /** Trajectories not replayed to the end (Ctrl-C, or events unsent): a re-run completes them. */
  incomplete: number;
  /** True when Ctrl-C (the signal) stopped the run. */
  interrupted: boolean;
  decisions: Record<string, number>;
  /** Tool calls stopped by the client in enforce mode, by reason. */
  stopped: Record<string, number>;
  /** Per trajectory label (see `labelOf`): tool calls, and how many were blocked or held for approval. */
  byLabel: Record<string, LabelCounts>;
  /** Agent version ids this replay used (its events are counted through them). */
  agentVersionIds: string[];
  /** The client's losses, and the HTTP retries (the replay's while the service was down, and the client's). */
  client: { dropped: number; failed: number; rejected: number; retries: number };
}

/** Everything projected: every expected event, and an evaluation row for every evaluated event. */
function settled(s: Stats, expected: number): boolean {
  const evaluations = Object.values(s.decisions).reduce((a, b) => a + b, 0);
  return s.events >= expected && evaluations >= (s.byType['agent.guardrail.evaluated'] ?? 0);
}

/** Agent version of a file's replay: the same on every run of the same bytes (and namespace). */
export function versionOf(fileDigest: string, namespace: string): string {
  return `replay-${fileDigest.slice(0, 16)}${namespace ? `-${namespace}` : ''}`;
}

/** The first trajectory of the first non-empty file, for the registration that tells the project. */
async function firstTrajectory(files: string[]): Promise<{ file: string; t: Trajectory } | undefined> {
  for (const file of files)
    for await (const { trajectory } of readTrajectoryLines(file)) return { file, t: trajectory };
  return undefined;
}

/**
 * Replays trajectory files through the service, resumably (docs/decisions.md "Replays use
 * deterministic ids", "Replays resume from what the service stored"): every id derives from the
 * file's bytes, the trajectory and the event's position, so a re-run skips the trajectories the
 * service holds in full and completes the others without storing anything twice. Requests are
 * retried while the service is down (`retryForMs`). At the end (or after Ctrl-C, `signal`) it
 * waits until the service has projected everything (`settleTimeoutMs`) and reads the counts back.
 *
 * Never throws for an unreachable service after the start: that shows in `events_unsent`,
 * `incomplete` and `null` read-backs. Throws when a file cannot be read or a line is not JSON, and
 * when the first registration fails for good (bad key, service down past `retryForMs`).
 */
export async function replayFiles(o: ReplayOptions): Promise<ReplaySummary> {
  const namespace = o.namespace ?? '';
  const stopped: Record<string, number> = {};
  const byLabel: Record<string, LabelCounts> = {};
  const versions = new Set<string>();
  const totals = { sent: 0, expected: 0, unsent: 0, dropped: 0, failed: 0, rejected: 0, retries: 0 };
  const counts = { done: 0, skipped: 0, resumed: 0, incomplete: 0 };
  let waiting: RetryNotice | undefined;
  const progress = () =>
    o.onProgress?.({ done: counts.done, total, skipped: counts.skipped, eventsSent: totals.sent, waiting });
  const fetchImpl = retryingFetch({
    retryForMs: o.retryForMs ?? 300_000,
    signal: o.signal,
    onRetry: (n) => {
      waiting = n;
      totals.retries += 1;
      progress();
    },
    onRecovered: () => {
      waiting = undefined;
      progress();
    },
  });
  const send: ServiceAccess = { url: o.baseUrl, apiKey: o.apiKey, fetch: fetchImpl };
  const read: ServiceAccess = { url: o.statsUrl ?? o.baseUrl, apiKey: o.apiKey, fetch: fetchImpl };

  const scans = new Map<string, { digest: string; trajectories: number }>();
  const tools = new Map<string, Map<string, string[]>>();
  for (const file of o.files) {
    scans.set(file, await scanFile(file));
    tools.set(file, await toolNamesByAgentInFile(file));
  }
  const lines = [...scans.values()].reduce((a, s) => a + s.trajectories, 0);
  const total = o.limit === undefined ? lines : Math.min(o.limit, lines);
  progress();

  const first = await firstTrajectory(o.files);
  const projectId = first
    ? await identifyProject(send, {
        agent: { key: agentKeyOf(first.t.agent), name: first.t.agent },
        version: {
          version: versionOf(scans.get(first.file)!.digest, namespace),
          metadata: { replay: 'true' },
        },
      })
    : '';

  const ctx = (file: string): ReplayOneContext => ({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    read,
    mode: o.mode ?? 'monitor',
    version: versionOf(scans.get(file)!.digest, namespace),
    versionMetadata: { replay: 'true' },
    toolsByAgent: tools.get(file)!,
    approvalWaitMs: o.approvalWaitMs ?? 1000,
    fetch: fetchImpl,
    requestTimeoutMs: (o.retryForMs ?? 300_000) + 60_000,
    signal: o.signal,
    stopped,
    byLabel,
    onToolCall: o.onToolCall,
  });

  const record = (r: TrajectoryOutcome) => {
    if (r.agentVersionId) versions.add(r.agentVersionId);
    if (r.kind === 'skipped') {
      counts.skipped += 1;
      totals.expected += r.events;
    } else {
      if (r.resumed) counts.resumed += 1;
      if (r.unsent > 0) counts.incomplete += 1;
      totals.sent += r.stats.sent;
      totals.expected += r.stats.sent;
      totals.unsent += r.unsent;
      totals.dropped += r.stats.dropped;
      totals.failed += r.stats.failed;
      totals.rejected += r.stats.rejected;
      totals.retries += r.stats.retries;
    }
    counts.done += 1;
    o.onTrajectory?.(counts.done);
    progress();
  };

  const concurrency = o.concurrency ?? 8;
  const inFlight = new Set<Promise<void>>();
  let started = 0;
  let failure: unknown;
  outer: for (const file of o.files) {
    const c = ctx(file);
    for await (const { trajectory: t, line } of readTrajectoryLines(file)) {
      if ((o.limit !== undefined && started >= o.limit) || o.signal?.aborted || failure) break outer;
      started += 1;
      const ids = new TrajectoryIds({
        namespace,
        projectId,
        fileDigest: scans.get(file)!.digest,
        trajectoryId: t.trajectory_id,
        line,
      });
      const p: Promise<void> = replayOne(t, ids, c)
        .then(record, (err: unknown) => {
          failure ??= err;
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
  const interrupted = o.signal?.aborted === true;
  counts.incomplete += total - counts.done;
  if (failure && !interrupted) throw failure;

  const ids = [...versions];
  let stats: Stats | undefined;
  try {
    const deadline = Date.now() + (interrupted ? 0 : (o.settleTimeoutMs ?? 120_000));
    stats = ids.length > 0 ? await fetchStats(read, ids) : emptyStats();
    while (!settled(stats, totals.expected) && Date.now() < deadline && !o.signal?.aborted) {
      await sleep(250, o.signal);
      stats = await fetchStats(read, ids);
    }
  } catch {
    stats = undefined; // the service is unreachable: the summary says so with nulls
  }
  return {
    trajectories: counts.done,
    skipped: counts.skipped,
    resumed: counts.resumed,
    events_sent: totals.sent,
    events_expected: totals.expected,
    events_stored: stats?.events ?? null,
    duplicates: stats?.duplicates ?? null,
    missing: stats ? Math.max(0, totals.expected - stats.events) : null,
    events_unsent: totals.unsent,
    incomplete: counts.incomplete,
    interrupted,
    decisions: (stats?.decisions ?? {}) as Record<Decision, number>,
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

function emptyStats(): Stats {
  return { events: 0, sessions: 0, duplicates: 0, byType: {}, decisions: {} };
}
