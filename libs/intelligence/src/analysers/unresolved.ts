import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import { textOf } from '../flow/identifiers';
import { clip, plural } from '../text';

/** Fewest user messages for a conversation to count as a request pursued (a single exchange may need no tool). */
export const MIN_USER_TURNS = 2;

/**
 * A request left unresolved (docs/intelligence.md "Failure analysers"): a conversation of at
 * least {@link MIN_USER_TURNS} user messages, answered by an agent that has tools (its version
 * declared some: `session.agentTools`), in which the agent made no tool call at all — nothing looked up, nothing done. Whatever the user asked for (a change, a
 * balance, a status) can only have been answered from the agent's own words, or not at all; most
 * often the agent asked the user for what it could have looked up, and the user left. Cites the
 * user's first message and the agent's last one. Medium. An agent that declared no tools may be a
 * plain chat assistant, for which answering without tools is the normal case: it stays quiet. Pure.
 */
export function unresolvedRequests(ctx: AnalysisContext): ActionItem[] {
  const tools = ctx.facts.input.session.agentTools;
  if (!tools || tools.length === 0 || ctx.facts.toolCalls.length > 0) return [];
  const messages = ctx.facts.events.filter(
    (e) => e.type === 'agent.message.logged' && textOf(e.data.content).trim() !== '',
  );
  const user = messages.filter((e) => e.data.role === 'user');
  const agent = messages.filter((e) => e.data.role === 'assistant');
  const first = user[0];
  const last = agent[agent.length - 1];
  if (user.length < MIN_USER_TURNS || !first || !last) return [];
  return [
    {
      kind: 'unresolved_request',
      severity: 'medium',
      title: `${plural(user.length, 'user message')} answered without a single tool call`,
      detail: `The user asked "${clip(textOf(first.data.content), 120)}"; over ${plural(agent.length, 'reply', 'replies')} the agent looked nothing up and did nothing, and the conversation ended on "${clip(textOf(last.data.content), 100)}".`,
      evidenceEventIds: [first.id, last.id],
    },
  ];
}
