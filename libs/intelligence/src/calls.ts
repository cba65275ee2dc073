import type { ToolCallFact } from './facts';

/** Stable JSON of a value (object keys sorted), to compare arguments. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A call that repeats an earlier failed call: same tool, same arguments. */
export interface Retry {
  call: ToolCallFact;
  /** The failed call it repeats (the latest one with that tool and arguments). */
  of: ToolCallFact;
}

/** Calls made again, with the same tool and arguments, after the same call failed. Pure. */
export function findRetries(calls: readonly ToolCallFact[]): Retry[] {
  const last = new Map<string, ToolCallFact>();
  const out: Retry[] = [];
  for (const c of calls) {
    if (c.status === 'not_run') continue;
    const key = `${c.toolName}\u0000${stableJson(c.arguments)}`;
    const prev = last.get(key);
    if (prev && prev.status === 'failed') out.push({ call: c, of: prev });
    last.set(key, c);
  }
  return out;
}

/** The evaluation event of a call that decided something other than `allow`, if any (the most severe). */
export function notableEvaluation(c: ToolCallFact): ToolCallFact['evaluations'][number] | undefined {
  const rank: Record<string, number> = { allow: 0, warn: 1, require_approval: 2, block: 3 };
  let best: ToolCallFact['evaluations'][number] | undefined;
  for (const e of c.evaluations) {
    const r = rank[String(e.data.policyDecision)] ?? 0;
    if (r > 0 && (!best || r > (rank[String(best.data.policyDecision)] ?? 0))) best = e;
  }
  return best;
}
