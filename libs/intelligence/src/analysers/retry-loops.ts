import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { toolClass } from '../flow/tool-classes';
import { clip, plural } from '../text';
import { callEvidence } from './evidence';
import { argumentSimilarity, failureText, looksFailed } from './similarity';

/** Failing attempts in a row that make a retry loop. */
export const LOOP_LENGTH = 3;
/** Argument similarity (1 − normalised edit distance) of an attempt to the one before it, to count as "the same with small variations". */
export const SMALL_VARIATION = 0.7;

interface Streak {
  calls: ToolCallFact[];
  /** The similar call that ended the streak by succeeding, if any. */
  resolvedBy: ToolCallFact | null;
}

/**
 * Retry loops and thrashing (docs/intelligence.md "Failure analysers"): {@link LOOP_LENGTH} or
 * more calls of one tool in a row (calls of other tools may come between), each failed — an error,
 * or output that says it failed ({@link looksFailed}, for shells) — each with arguments at least
 * {@link SMALL_VARIATION} similar to the attempt before. High when no similar attempt succeeded
 * afterwards, else low (the agent got there, at a cost). Pure.
 */
export function retryLoops(ctx: AnalysisContext): ActionItem[] {
  const open = new Map<string, Streak>();
  const streaks: Streak[] = [];
  const close = (tool: string) => {
    const s = open.get(tool);
    if (s && s.calls.length >= LOOP_LENGTH) streaks.push(s);
    open.delete(tool);
  };
  for (const c of ctx.facts.toolCalls) {
    if (c.status === 'not_run' || c.status === 'unfinished') continue;
    const s = open.get(c.toolName);
    const last = s?.calls[s.calls.length - 1];
    const similar = last ? argumentSimilarity(last, c) >= SMALL_VARIATION : false;
    if (looksFailed(c)) {
      if (s && similar) s.calls.push(c);
      else {
        close(c.toolName);
        open.set(c.toolName, { calls: [c], resolvedBy: null });
      }
    } else {
      if (s && similar) s.resolvedBy = c;
      close(c.toolName);
    }
  }
  for (const tool of [...open.keys()]) close(tool);
  return streaks.map((s) => {
    const first = s.calls[0] as ToolCallFact;
    const last = s.calls[s.calls.length - 1] as ToolCallFact;
    const shell = toolClass(first.toolName) === 'shell';
    const what = shell ? `the same ${first.toolName} command` : first.toolName;
    return {
      kind: 'retry_loop' as const,
      severity: s.resolvedBy ? ('low' as const) : ('high' as const),
      title: `${what} failed ${plural(s.calls.length, 'time')} in a row with small variations`,
      detail: `Calls ${s.calls.map((c) => `#${c.index + 1}`).join(', ')} repeated ${what} with arguments that barely changed, and each failed (last: ${clip(failureText(last), 120)}). ${
        s.resolvedBy
          ? `A similar call (#${s.resolvedBy.index + 1}) finally succeeded.`
          : 'No similar call succeeded afterwards: the agent was stuck rather than fixing the cause.'
      }`,
      evidenceEventIds: callEvidence(s.resolvedBy ? [...s.calls, s.resolvedBy] : s.calls),
    };
  });
}
