import type { ActionItem } from '@agent-warden/contracts';
import { stableJson } from '../calls';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { toolClass } from '../flow/tool-classes';
import { plural } from '../text';
import { callEvidence } from './evidence';
import { idArguments, leafPairs } from './similarity';

/** Share of argument leaves two create calls must have in common to count as near-same (Jaccard). */
export const NEAR_SAME = 0.75;

/** Jaccard similarity of two calls' `path=value` argument leaves. */
function leafJaccard(a: ToolCallFact, b: ToolCallFact): number {
  const x = new Set(leafPairs(a.arguments));
  const y = new Set(leafPairs(b.arguments));
  if (x.size === 0 && y.size === 0) return 1;
  let common = 0;
  for (const v of x) if (y.has(v)) common += 1;
  return common / (x.size + y.size - common);
}

/**
 * Repeated side effects (docs/intelligence.md "Failure analysers"): a side-effecting tool that
 * completed more than once with the same arguments (any create/update/compensate class), or a
 * create-class tool (book, pay, send …) that completed more than once with near-same arguments
 * (≥ {@link NEAR_SAME} of the argument leaves equal, the identifying `…_id` arguments equal).
 * One item per group of such calls, citing every call. Pure.
 */
export function duplicateSideEffects(ctx: AnalysisContext): ActionItem[] {
  const done = ctx.facts.toolCalls.filter(
    (c) => c.status === 'completed' && toolClass(c.toolName) !== 'shell',
  );
  const groups: ToolCallFact[][] = [];
  const used = new Set<ToolCallFact>();
  for (let i = 0; i < done.length; i += 1) {
    const a = done[i] as ToolCallFact;
    const cls = toolClass(a.toolName);
    if (used.has(a) || (cls !== 'create' && cls !== 'update' && cls !== 'compensate')) continue;
    const group = [a];
    for (const b of done.slice(i + 1)) {
      if (used.has(b) || b.toolName !== a.toolName) continue;
      const same = stableJson(a.arguments) === stableJson(b.arguments);
      const near =
        cls === 'create' &&
        stableJson(idArguments(a)) === stableJson(idArguments(b)) &&
        leafJaccard(a, b) >= NEAR_SAME;
      if (same || near) group.push(b);
    }
    if (group.length < 2) continue;
    for (const c of group) used.add(c);
    groups.push(group);
  }
  return groups.map((g) => {
    const first = g[0] as ToolCallFact;
    const identical = g.every((c) => stableJson(c.arguments) === stableJson(first.arguments));
    return {
      kind: 'duplicate_side_effect' as const,
      severity: 'high' as const,
      title: `${first.toolName} succeeded ${plural(g.length, 'time')} with ${identical ? 'the same' : 'near-same'} arguments`,
      detail: `${first.toolName} changes something outside the agent, and it completed ${plural(g.length, 'time')} with ${identical ? 'identical arguments' : 'arguments that differ in few values'} (calls ${g.map((c) => `#${c.index + 1}`).join(', ')}). Check whether the effect happened more than once where once was asked for (two bookings, the same payment twice).`,
      evidenceEventIds: callEvidence(g),
    };
  });
}
