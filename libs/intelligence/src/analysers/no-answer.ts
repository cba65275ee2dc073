import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';
import { nameWords, toolClass } from '../flow/tool-classes';
import { callEvidence } from './evidence';
import { argumentText } from './similarity';

/** Leading verbs of tools that end a session by themselves: hand the answer in, or hand the user over. */
const TERMINAL = new Set([
  'submit',
  'finish',
  'answer',
  'respond',
  'reply',
  'final',
  'done',
  'complete',
  'end',
  'handoff',
  'escalate',
]);

/** True when `call` is itself the session's answer or hand-over (`submit …`, `final_answer`, `transfer_to_…`). */
export function isTerminal(call: ToolCallFact): boolean {
  const [verb, next] = nameWords(call.toolName);
  if (verb && TERMINAL.has(verb)) return true;
  if (next === 'to' && (verb === 'transfer' || verb === 'hand' || verb === 'route')) return true;
  if (toolClass(call.toolName) === 'shell') {
    const first = argumentText(call).trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    return TERMINAL.has(first);
  }
  return false;
}

/**
 * A session that ends without an answer (docs/intelligence.md "Failure analysers"): the agent's
 * last tool call came after its last message with text, and that call is not itself an answer or
 * a hand-over ({@link isTerminal}): the agent acted, or was still looking, and never told the user
 * what came of it. Medium. Pure.
 */
export function noFinalAnswer(ctx: AnalysisContext): ActionItem[] {
  const calls = ctx.facts.toolCalls.filter((c) => c.status !== 'not_run');
  const last = calls[calls.length - 1];
  if (!last) return [];
  const lastCallSeq = Math.max(...last.eventIds.map((id) => ctx.facts.byId.get(id)?.sequence ?? 0));
  const answered = ctx.facts.events.some(
    (e) =>
      e.type === 'agent.message.logged' &&
      e.data.role === 'assistant' &&
      textOf(e.data.content).trim() !== '' &&
      e.sequence > lastCallSeq,
  );
  if (answered || isTerminal(last)) return [];
  const end = [...ctx.facts.events].reverse().find((e) => e.type === 'agent.session.ended');
  return [
    {
      kind: 'no_final_answer',
      severity: 'medium',
      title: `The session ended after ${last.toolName} without an answer to the user`,
      detail: `The last thing the agent did was call ${last.toolName} (call #${last.index + 1}, ${last.status}); no message with text followed, so the user was not told what came of it.`,
      evidenceEventIds: callEvidence([last], end ? [end.id] : []),
    },
  ];
}
