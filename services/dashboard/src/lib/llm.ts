import type { ActivityStats, LlmUsage } from '../api/types';

/**
 * Display and chart helpers of LLM calls (docs/architecture.md#llm-calls). Pure functions (unit
 * tested): costs are USD, durations ms, tokens counts.
 */

/**
 * A cost in USD: `$12.34` from a cent up, `$0.000435` (3 significant digits) below, `$0` for 0;
 * `unknown` for null (a model not in the price table: never shown as 0).
 */
export function usd(cost: number | null | undefined): string {
  if (cost === null || cost === undefined || !Number.isFinite(cost)) return 'unknown';
  if (cost === 0) return '$0';
  if (Math.abs(cost) >= 0.01)
    return `$${cost.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `$${Number(cost.toPrecision(3)).toString()}`;
}

/** A token count: `950`, `12.3k`, `4.5M`. */
export function tokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Number((n / 1000).toPrecision(3))}k`;
  return `${Number((n / 1_000_000).toPrecision(3))}M`;
}

/** One point of the usage and activity charts (one time bucket). */
export interface UsagePoint {
  /** Bucket start, ISO. */
  time: string;
  inputTokens: number;
  outputTokens: number;
  /** USD of the priced calls; null when none was priced. */
  costUsd: number | null;
  calls: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  events: number;
  toolFailures: number;
  llmErrors: number;
  /** (tool failures + failed LLM calls) / (tool calls + LLM calls), %; null when there was neither. */
  errorRate: number | null;
}

/**
 * Joins the usage and activity answers (same agent, range and bucket) into one point per bucket,
 * in time order. A bucket only one answer holds gets zeros for the other's figures.
 */
export function usagePoints(usage: LlmUsage | undefined, activity: ActivityStats | undefined): UsagePoint[] {
  const m = new Map<string, UsagePoint>();
  const point = (time: string): UsagePoint => {
    let p = m.get(time);
    if (!p) {
      p = {
        time,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: null,
        calls: 0,
        p50: null,
        p95: null,
        p99: null,
        events: 0,
        toolFailures: 0,
        llmErrors: 0,
        errorRate: null,
      };
      m.set(time, p);
    }
    return p;
  };
  for (const b of usage?.items ?? [])
    Object.assign(point(b.start), {
      inputTokens: b.inputTokens,
      outputTokens: b.outputTokens,
      costUsd: b.costUsd,
      calls: b.calls,
      p50: b.latencyMs.p50,
      p95: b.latencyMs.p95,
      p99: b.latencyMs.p99,
    });
  for (const b of activity?.items ?? []) {
    const p = point(b.start);
    p.events = b.events;
    p.toolFailures = b.toolFailures;
    p.llmErrors = b.llmErrors;
    const attempts = b.toolCalls + b.llmCalls;
    p.errorRate = attempts > 0 ? (100 * (b.toolFailures + b.llmErrors)) / attempts : null;
  }
  return [...m.values()].sort((a, b) => a.time.localeCompare(b.time));
}
