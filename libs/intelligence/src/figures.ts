import type { IntelligenceFigures } from '@agent-warden/contracts';
import type { SessionFacts } from './facts';

/** Most sequence gap ranges listed in the figures (the count `lostEvents` is always complete). */
export const MAX_GAP_RANGES = 100;

/**
 * Missing per-session sequence numbers (1..max, where max is the larger of the session's
 * `maxSequence` and the highest sequence seen) as inclusive ranges, and their total.
 */
export function sequenceGaps(facts: SessionFacts): { lost: number; ranges: [number, number][] } {
  const seen = [...new Set(facts.events.map((e) => e.sequence))].sort((a, b) => a - b);
  const max = Math.max(facts.input.session.maxSequence, seen[seen.length - 1] ?? 0);
  const ranges: [number, number][] = [];
  let lost = 0;
  let expected = 1;
  for (const s of [...seen, max + 1]) {
    if (s > expected) {
      lost += s - expected;
      ranges.push([expected, s - 1]);
    }
    expected = Math.max(expected, s + 1);
  }
  return { lost, ranges };
}

function inc(m: Record<string, number>, k: string, by = 1): void {
  m[k] = (m[k] ?? 0) + by;
}

function runStatuses(facts: SessionFacts): Record<string, number> {
  const out: Record<string, number> = {};
  if (facts.input.runs.length > 0) {
    for (const r of facts.input.runs) inc(out, r.status);
    return out;
  }
  const status = new Map<string, string>();
  for (const e of facts.events) {
    if (!e.runId) continue;
    if (e.type === 'agent.run.started' && !status.has(e.runId)) status.set(e.runId, 'running');
    if (e.type === 'agent.run.completed') status.set(e.runId, String(e.data.status ?? 'succeeded'));
  }
  for (const s of status.values()) inc(out, s);
  return out;
}

/**
 * Decisions by policy decision: from the `agent.guardrail.evaluated` events, or — when the session
 * has none (lost, or a client that does not send them) — from the evaluations the gateway recorded.
 */
function decisions(facts: SessionFacts): Record<string, number> {
  const out: Record<string, number> = {};
  if (facts.evaluations.length > 0) {
    for (const e of facts.evaluations) inc(out, String(e.data.policyDecision ?? 'unknown'));
  } else {
    for (const e of facts.input.evaluations) inc(out, e.policyDecision);
  }
  return out;
}

const TIMINGS = new Set<string>(['source', 'source-total-only', 'replay']);

/**
 * The session attribute `timing` of `agent.session.started` (a replay says where its times come
 * from; contracts `IntelligenceFigures.timing`), when it is one of the known kinds.
 */
function timingOf(facts: SessionFacts): IntelligenceFigures['timing'] {
  const started = facts.events.find((e) => e.type === 'agent.session.started');
  const attributes = (started?.data as { attributes?: unknown } | undefined)?.attributes;
  const timing = (attributes as { timing?: unknown } | null | undefined)?.timing;
  return typeof timing === 'string' && TIMINGS.has(timing)
    ? (timing as IntelligenceFigures['timing'])
    : undefined;
}

/** The figures of a session (contracts `IntelligenceFigures`). Pure. */
export function computeFigures(facts: SessionFacts): IntelligenceFigures {
  const byTool: Record<string, { calls: number; failures: number }> = {};
  let toolCalls = 0;
  let toolFailures = 0;
  for (const c of facts.toolCalls) {
    if (c.status === 'not_run') continue;
    toolCalls += 1;
    const t = (byTool[c.toolName] ??= { calls: 0, failures: 0 });
    t.calls += 1;
    if (c.status === 'failed') {
      t.failures += 1;
      toolFailures += 1;
    }
  }
  const approvals = {
    requested: 0,
    approved: 0,
    denied: 0,
    expired: 0,
    cancelled: 0,
    pending: 0,
    waitMs: [] as number[],
  };
  for (const a of facts.approvals) {
    approvals.requested += 1;
    if (
      a.status === 'approved' ||
      a.status === 'denied' ||
      a.status === 'expired' ||
      a.status === 'cancelled'
    ) {
      approvals[a.status] += 1;
      if (a.waitMs !== null) approvals.waitMs.push(a.waitMs);
    } else approvals.pending += 1;
  }
  let first = Infinity;
  let last = -Infinity;
  for (const e of facts.events) {
    const t = Date.parse(e.time);
    if (!Number.isFinite(t)) continue;
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  const gaps = sequenceGaps(facts);
  const runsByStatus = runStatuses(facts);
  const timing = timingOf(facts);
  return {
    runs: Object.values(runsByStatus).reduce((a, b) => a + b, 0),
    runsByStatus,
    events: facts.events.length,
    toolCalls,
    toolCallsByTool: byTool,
    toolFailures,
    decisions: decisions(facts),
    approvals,
    durationMs: last >= first ? last - first : 0,
    ...(timing ? { timing } : {}),
    lostEvents: gaps.lost,
    sequenceGaps: gaps.ranges.slice(0, MAX_GAP_RANGES),
  };
}
