import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { toolClass } from '../flow/tool-classes';
import { showValue } from '../text';
import { callEvidence } from './evidence';
import { isIdArgument, looksFailed } from './similarity';
import { leafValues, parsedResult, resultIds } from './json-values';

/** The identifying arguments of a call (top-level identifying keys with a non-empty scalar value). */
function targets(c: ToolCallFact): { key: string; value: string }[] {
  return Object.entries(c.arguments)
    .filter(([k, v]) => isIdArgument(k) && (typeof v === 'string' || typeof v === 'number'))
    .map(([key, v]) => ({ key, value: String(v).trim() }))
    .filter((t) => t.value !== '');
}

/** True when a result is the clients' mark of a cut value (`{ truncated: true, originalChars, preview }`). */
function isCut(result: unknown): boolean {
  const v = parsedResult(result);
  return !!v && typeof v === 'object' && (v as { truncated?: unknown }).truncated === true;
}

/**
 * Acted on an object nobody looked up (docs/intelligence.md "Failure analysers"): an update- or
 * compensate-class call (change, cancel, delete, refund …) that completed on an identifier — the
 * value of one of its `…_id` arguments — that no earlier call took as an argument and no earlier
 * result returned as the value of an identifying key. The agent changed or undid an object on
 * someone's word (the user's, or a tool output's) without reading it first, so nothing it
 * checked (its state, its owner, whether the change is allowed) can have come from the object
 * itself. One item per call, citing it. Medium. Pure.
 *
 * After a result the client cut (`{ truncated: true, … }`, clients' serializer) the analyser stays
 * quiet: the identifier may have been in the part that was not sent.
 *
 * A reference inside a listing (`"reservations": ["ABC123", …]`) is not a look-up: only a key
 * that names an identifier (`id`, `…_id`) counts ({@link resultIds}).
 */
export function unverifiedTargets(ctx: AnalysisContext): ActionItem[] {
  const looked = new Set<string>();
  const out: ActionItem[] = [];
  let cut = false;
  for (const c of ctx.facts.toolCalls) {
    const cls = toolClass(c.toolName);
    if (!cut && c.status === 'completed' && (cls === 'update' || cls === 'compensate') && !looksFailed(c)) {
      const unread = targets(c).filter((t) => !looked.has(t.value));
      if (unread.length > 0) {
        const shown = unread.map((t) => `${t.key} ${showValue(t.value, 40)}`).join(', ');
        out.push({
          kind: 'unverified_target',
          severity: 'medium',
          title: `${c.toolName} acted on ${shown}, which the agent never looked up`,
          detail: `${c.toolName} (call #${c.index + 1}) ${cls === 'compensate' ? 'undid' : 'changed'} an object that no earlier call read and no earlier result returned: the agent went by what it was told, without checking the object's state or whether the action is allowed for it.`,
          evidenceEventIds: callEvidence([c]),
        });
      }
    }
    if (c.status !== 'completed') continue;
    if (isCut(c.result)) cut = true;
    for (const v of leafValues(c.arguments)) looked.add(v);
    for (const id of resultIds(c.result, 1)) looked.add(id);
  }
  return out;
}
