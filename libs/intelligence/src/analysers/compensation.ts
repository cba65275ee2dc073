import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import { textOf } from '../flow/identifiers';
import { toolClass } from '../flow/tool-classes';
import { clip } from '../text';
import { callEvidence } from './evidence';
import { leafValues, resultIds } from './json-values';

/**
 * Irreversible action followed by compensation (docs/intelligence.md "Failure analysers"): a
 * create-class call (book, pay, create …) whose result returned a new identifier — one not seen
 * in the request or in any earlier call or result — that a later compensate-class call (cancel,
 * delete, refund …) took as an argument: the data flow says it undid that very object. One item
 * per pair, citing both calls. Pure.
 */
export function compensatedActions(ctx: AnalysisContext): ActionItem[] {
  const out: ActionItem[] = [];
  const calls = ctx.facts.toolCalls;
  let seen = ctx.facts.task ?? '';
  for (const [i, a] of calls.entries()) {
    const before = seen;
    seen += `\n${textOf(a.arguments)}\n${textOf(a.result)}`;
    if (a.status !== 'completed' || toolClass(a.toolName) !== 'create') continue;
    const fresh = resultIds(a.result).filter(
      (id) => !before.includes(id) && !textOf(a.arguments).includes(id),
    );
    if (fresh.length === 0) continue;
    for (const b of calls.slice(i + 1)) {
      if (b.status !== 'completed' || toolClass(b.toolName) !== 'compensate') continue;
      const values = new Set(leafValues(b.arguments));
      const id = fresh.find((x) => values.has(x));
      if (!id) continue;
      out.push({
        kind: 'compensated_action',
        severity: 'medium',
        title: `${a.toolName} then ${b.toolName} of the same object`,
        detail: `${a.toolName} (call #${a.index + 1}) created ${clip(id, 40)}, and ${b.toolName} (call #${b.index + 1}) undid it later in the session. A side effect that had to be compensated: check why it was made (a wrong or extra booking, payment or record) and what undoing it cost.`,
        evidenceEventIds: callEvidence([a, b]),
      });
    }
  }
  return out;
}
