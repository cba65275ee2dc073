import type { Trajectory } from './trajectories';

/**
 * Where a replayed session's times come from (its `timing` session attribute; docs/decisions.md
 * "Replays keep the source's timing"):
 * - `source`: every step of the trajectory has its own time (`timestamp`), so events are placed
 *   where the logged run had them;
 * - `source-total-only`: the source gives only the run's total duration (AgentDojo `meta.duration_s`),
 *   shared out evenly over the steps ({@link trajectoryTiming});
 * - `replay`: the source has no timing; the events carry the replay's own clock (not the agent's).
 */
export type TimingKind = 'source' | 'source-total-only' | 'replay';

/** When one step happened, relative to the session's start. */
export interface StepTiming {
  /** Offset of the step's start from the session's start, ms (≥ 0). */
  atMs: number;
  /** How long the tool call took, ms, when the source says (`duration_s`); else the call takes 0 ms. */
  durationMs?: number;
}

/** The timing a trajectory's replay gives its events (pure data, derived from the source only). */
export interface TrajectoryTiming {
  kind: TimingKind;
  /** The session's start from the source, epoch ms; absent when the source has no absolute time. */
  startMs?: number;
  /** Session end − start, ms (absent with `replay`). */
  totalMs?: number;
  /** One entry per step of `trajectory.steps` (empty with `replay`). */
  steps: StepTiming[];
}

/** Epoch ms of an ISO 8601 time with a zone (`Z` or `±hh:mm`), else undefined. */
function isoMs(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(v))
    return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A finite, non-negative number of seconds as ms (rounded to 1 ms), else undefined. */
function secondsMs(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v * 1000) : undefined;
}

/**
 * The timing of a trajectory's replay, from the source alone (never the wall clock), so replaying
 * the same trajectory twice gives the same times. Fields read (the JSONL format of
 * ../shared/data/trajectories/README.md; absent or malformed values are ignored):
 * - `meta.started_at` (ISO 8601): the session's start;
 * - `meta.duration_s` (seconds; AgentDojo's `duration`): the run's total;
 * - `steps[].timestamp` (ISO 8601) and `steps[].duration_s` (seconds, a tool call's duration).
 *
 * Rules: when every step has a `timestamp`, `source`: the start is `meta.started_at` or the first
 * step's time, whichever is earlier; each step at its own time (steps out of order keep the previous
 * step's time); the total is `meta.duration_s` when it reaches past the last step's end, else that
 * end. Else, with `meta.duration_s` = T ms and N steps, `source-total-only`: step i (0-based) at
 * `round(i × T / N)` ms, tool calls 0 ms, the run and the session ending at T, so the session lasts
 * exactly T. Else `replay`.
 */
export function trajectoryTiming(t: Pick<Trajectory, 'meta' | 'steps'>): TrajectoryTiming {
  const meta = (t.meta ?? {}) as Record<string, unknown>;
  const steps = t.steps as unknown as Record<string, unknown>[];
  const metaStart = isoMs(meta.started_at);
  const total = secondsMs(meta.duration_s);
  const stamps = steps.map((s) => isoMs(s.timestamp));
  if (steps.length > 0 && stamps.every((s) => s !== undefined)) {
    const first = stamps[0] as number;
    const start = metaStart === undefined ? first : Math.min(metaStart, first);
    let previous = 0;
    let end = 0;
    const out = steps.map((s, i) => {
      const atMs = Math.max(previous, (stamps[i] as number) - start);
      previous = atMs;
      const durationMs = s.kind === 'tool_call' ? secondsMs(s.duration_s) : undefined;
      end = Math.max(end, atMs + (durationMs ?? 0));
      return durationMs === undefined ? { atMs } : { atMs, durationMs };
    });
    return { kind: 'source', startMs: start, totalMs: Math.max(end, total ?? 0), steps: out };
  }
  if (total !== undefined) {
    const n = steps.length;
    return {
      kind: 'source-total-only',
      ...(metaStart === undefined ? {} : { startMs: metaStart }),
      totalMs: total,
      steps: steps.map((_, i) => ({ atMs: Math.round((i * total) / n) })),
    };
  }
  return { kind: 'replay', steps: [] };
}

/**
 * The start a replay anchors the source's relative times to, epoch ms: the source's own start when
 * it has one; else, for a session the service already holds in part (an interrupted replay), that
 * session's stored start, so the resumed events line up with the stored ones; else `now` (the
 * first replay's clock: the shared sources carry durations, not dates).
 */
export function timingAnchor(
  timing: TrajectoryTiming,
  storedStartedAt: string | undefined,
  now: number,
): number {
  if (timing.startMs !== undefined) return timing.startMs;
  const stored = storedStartedAt === undefined ? NaN : Date.parse(storedStartedAt);
  return Number.isFinite(stored) ? stored : now;
}

/**
 * A settable clock for the client's `clock` option: the replay moves it to each step's time and,
 * while a tool's callback runs, forward by the call's logged duration (the client measures
 * `durationMs` on it).
 */
export class ReplayClock {
  private current: number;

  /** `anchorMs`: the session's start, epoch ms. */
  constructor(private readonly anchorMs: number) {
    this.current = anchorMs;
  }

  /** The clock's time, epoch ms (pass as the client's `clock`). */
  readonly now = (): number => this.current;

  /** Moves the clock to `offsetMs` after the anchor (never backwards). */
  at(offsetMs: number): void {
    this.current = Math.max(this.current, this.anchorMs + offsetMs);
  }

  /** Moves the clock forward by `ms` (≥ 0). */
  advance(ms: number): void {
    this.current += Math.max(0, ms);
  }
}

/** What `replayOne` needs of a trajectory's timing: client options, session attributes and step hooks. */
export interface ReplayTiming {
  /** `{ clock }` when the source has timing; empty (the client's own clocks) when it has none. */
  clientOptions: { clock?: () => number };
  /** Session attributes: `{ timing: TimingKind }`. */
  attributes: { timing: TimingKind };
  /** Before step `position`: the clock moves to the step's time. */
  beforeStep(position: number): void;
  /** While the tool call of step `position` runs: the clock moves on by its logged duration. */
  duringTool(position: number): void;
  /** After the last step: the clock moves to the run's end (start + total). */
  atEnd(): void;
}

/**
 * The timing of one trajectory's replay ({@link trajectoryTiming}) anchored at
 * {@link timingAnchor}; with no timing in the source, no clock and hooks that do nothing (the
 * replay's own times, as before). `storedStartedAt`: the stored session's start when the service
 * holds part of it. `now`: the wall clock, read only when the source has no start.
 */
export function replayTiming(
  t: Pick<Trajectory, 'meta' | 'steps'>,
  storedStartedAt?: string,
  now: () => number = Date.now,
): ReplayTiming {
  const timing = trajectoryTiming(t);
  const attributes = { timing: timing.kind };
  if (timing.kind === 'replay') {
    const none = () => undefined;
    return { clientOptions: {}, attributes, beforeStep: none, duringTool: none, atEnd: none };
  }
  const clock = new ReplayClock(timingAnchor(timing, storedStartedAt, now()));
  return {
    clientOptions: { clock: clock.now },
    attributes,
    beforeStep: (position) => clock.at(timing.steps[position]?.atMs ?? 0),
    duringTool: (position) => clock.advance(timing.steps[position]?.durationMs ?? 0),
    atEnd: () => clock.at(timing.totalMs ?? 0),
  };
}
