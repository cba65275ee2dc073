import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import { textOf } from '../flow/identifiers';
import { clip } from '../text';
import { callEvidence } from './evidence';

/** Words by which a reply acknowledges a failure (English; generic, no benchmark's wording). */
const ACKNOWLEDGES =
  /\b(error|errors|fail|failed|fails|failure|unable|could not|couldn't|cannot|can't|can not|not possible|impossible|issue|problem|unfortunately|sorry|apolog\w*|not enough|insufficient|invalid|wrong|mismatch|did not|didn't|does not|doesn't|not available|unavailable|no longer|denied|rejected|retry|try again|instead|however|exceed\w*|only|seems|appears|oversight|sufficient)\b/i;
/** Words by which a reply claims that something was done. */
const CLAIMS_SUCCESS =
  /\b(successfully|success|confirmed|completed|is done|has been|have been|all set|booked|updated|processed|cancel+ed|created|sent|paid)\b/i;

/** Shortest error word that, found in the reply, shows the reply is about the failure, letters. */
export const MIN_SHARED_WORD = 5;

/** True when `reply` names the failure: a word of {@link ACKNOWLEDGES}, or a word of the error's text ({@link MIN_SHARED_WORD}+ letters). */
export function acknowledges(reply: string, error: string): boolean {
  if (ACKNOWLEDGES.test(reply)) return true;
  const words = new Set(reply.toLowerCase().match(/[a-z]+/g) ?? []);
  return (error.toLowerCase().match(/[a-z]+/g) ?? []).some(
    (w) => w.length >= MIN_SHARED_WORD && words.has(w),
  );
}

/**
 * Errors the agent ignored (docs/intelligence.md "Failure analysers"): a tool call that failed
 * (an `agent.tool.failed`), that no later call of the same tool made good, and after which the
 * agent's next message to the user does not acknowledge it ({@link acknowledges}) — high
 * when that message claims something was done ({@link CLAIMS_SUCCESS}), else medium; or, with no
 * message and no tool call after it, the run simply ended on the error (medium). Pure.
 */
export function ignoredErrors(ctx: AnalysisContext): ActionItem[] {
  const out: ActionItem[] = [];
  const { events, toolCalls, toolCallById } = ctx.facts;
  for (const c of toolCalls) {
    if (c.status !== 'failed' || !c.ended) continue;
    const later = toolCalls.filter((x) => x.index > c.index && x.status !== 'not_run');
    if (later.some((x) => x.toolName === c.toolName && x.status === 'completed')) continue;
    const endedAt = events.indexOf(c.ended);
    const after = events.slice(endedAt + 1);
    const reply = after.find((e) => e.type === 'agent.message.logged' && e.data.role === 'assistant');
    if (reply) {
      const text = textOf(reply.data.content);
      if (acknowledges(text, c.error ?? '')) continue;
      const claims = CLAIMS_SUCCESS.test(text);
      out.push({
        kind: 'ignored_error',
        severity: claims ? 'high' : 'medium',
        title: `${c.toolName} failed and the agent's next reply does not mention it`,
        detail: `${c.toolName} (call #${c.index + 1}) failed: ${clip(c.error ?? 'failed', 140)}. No later ${c.toolName} call succeeded, and the next reply to the user ${claims ? 'claims the work was done' : 'goes on'} without acknowledging the failure: "${clip(text, 140)}".`,
        evidenceEventIds: callEvidence([c], [reply.id]),
      });
      continue;
    }
    const nextCall = after.some(
      (e) => typeof e.data.toolCallId === 'string' && toolCallById.get(e.data.toolCallId)?.index !== c.index,
    );
    if (nextCall || later.length > 0) continue;
    const end = [...after]
      .reverse()
      .find((e) => e.type === 'agent.session.ended' || e.type === 'agent.run.completed');
    out.push({
      kind: 'ignored_error',
      severity: 'medium',
      title: `The run ended right after ${c.toolName} failed`,
      detail: `${c.toolName} (call #${c.index + 1}) failed: ${clip(c.error ?? 'failed', 140)}. The agent made no other call and sent no reply afterwards.`,
      evidenceEventIds: callEvidence([c], end ? [end.id] : []),
    });
  }
  return out;
}
