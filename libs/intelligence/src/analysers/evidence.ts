import type { ToolCallFact } from '../facts';

/** Most evidence ids an action item lists (the detail gives the full count). */
export const MAX_EVIDENCE = 50;

/** The event ids of `calls` (and `extra` ids), without repeats, at most {@link MAX_EVIDENCE}. */
export function callEvidence(calls: readonly ToolCallFact[], extra: readonly string[] = []): string[] {
  return [...new Set([...calls.flatMap((c) => c.eventIds), ...extra])].slice(0, MAX_EVIDENCE);
}
