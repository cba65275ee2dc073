import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';
import { hasSideEffect } from '../flow/tool-classes';
import { clip, plural } from '../text';
import { callEvidence } from './evidence';

/** Words by which a user agrees to a proposed action (English; generic). */
const CONFIRMS =
  /\b(yes|yeah|yep|yup|confirm\w*|proceed\w*|go ahead|please do|do it|sure|ok|okay|let'?s|let us|correct|right|agreed?|sounds good|fine|approve\w*|accept\w*)\b/i;

/** True when `text` agrees to something ({@link CONFIRMS}). */
export function confirms(text: string): boolean {
  return CONFIRMS.test(text);
}

/** True when the agent asked the user a question (a `?` in its message) and the user answered. */
function isConversation(ctx: AnalysisContext): boolean {
  let asked = false;
  for (const e of ctx.facts.events) {
    if (e.type !== 'agent.message.logged') continue;
    if (e.data.role === 'assistant' && textOf(e.data.content).includes('?')) asked = true;
    else if (e.data.role === 'user' && asked) return true;
  }
  return false;
}

/**
 * Side effects without the user's go-ahead (docs/intelligence.md "Failure analysers"): in a
 * conversation — the agent asked the user a question and the user answered, so it can ask before
 * it acts — a side-effecting call (create, update or compensate class) whose latest user message
 * before it does not agree to anything ({@link confirms}). One item for all such calls. A
 * session with a single request (no conversation) stays quiet: the request is the go-ahead. Pure.
 */
export function unconfirmedSideEffects(ctx: AnalysisContext): ActionItem[] {
  if (!isConversation(ctx)) return [];
  const unconfirmed: { call: ToolCallFact; user: string | null; text: string }[] = [];
  let lastUser: { id: string; text: string } | null = null;
  for (const e of ctx.facts.events) {
    if (e.type === 'agent.message.logged' && e.data.role === 'user') {
      lastUser = { id: e.id, text: textOf(e.data.content) };
      continue;
    }
    if (e.type !== 'agent.tool.started' || typeof e.data.toolCallId !== 'string') continue;
    const call = ctx.facts.toolCallById.get(e.data.toolCallId);
    if (!call || !hasSideEffect(call.toolName)) continue;
    if (lastUser && confirms(lastUser.text)) continue;
    unconfirmed.push({ call, user: lastUser?.id ?? null, text: lastUser?.text ?? '' });
  }
  if (unconfirmed.length === 0) return [];
  const tools = [...new Set(unconfirmed.map((u) => u.call.toolName))];
  const first = unconfirmed[0] as (typeof unconfirmed)[number];
  return [
    {
      kind: 'unconfirmed_side_effect',
      severity: 'medium',
      title: `${plural(unconfirmed.length, 'side-effecting call')} (${tools.join(', ')}) made without the user's go-ahead`,
      detail: `In a conversation where the agent could ask first, ${first.call.toolName} (call #${first.call.index + 1})${unconfirmed.length > 1 ? ' and others' : ''} changed something although the user's latest message did not agree to it${first.text ? `: "${clip(first.text, 120)}"` : ' (no user message before it)'}. Check that the user wanted exactly this action.`,
      evidenceEventIds: callEvidence(
        unconfirmed.map((u) => u.call),
        unconfirmed.flatMap((u) => (u.user ? [u.user] : [])),
      ),
    },
  ];
}
