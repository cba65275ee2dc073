import type { ActionItem, IntelligenceSummary } from '@agent-warden/contracts';
import type { AnalysisContext } from './context';
import { clip, counted, duration, listOf, plural } from './text';

/** The outcome: the session's status (or its last run's), explained in one sentence. */
export function outcomeOf(ctx: AnalysisContext): IntelligenceSummary['outcome'] {
  const { session, runs } = ctx.facts.input;
  const f = ctx.figures;
  const lastRun = [...runs].sort((a, b) => ((a.startedAt ?? '') < (b.startedAt ?? '') ? -1 : 1)).pop();
  const status = session.status !== 'active' ? session.status : (lastRun?.status ?? 'unknown');
  const parts: string[] = [];
  parts.push(
    session.status === 'active'
      ? 'The session has not ended'
      : `The session ${session.status === 'completed' ? 'completed' : `ended ${session.status}`}`,
  );
  const runText = Object.entries(f.runsByStatus)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([s, n]) => `${n} ${s}`);
  if (f.runs > 0) parts[0] += ` (${plural(f.runs, 'run')}: ${listOf(runText)})`;
  if (f.toolCalls > 0)
    parts.push(
      f.toolFailures > 0
        ? `${f.toolFailures} of ${plural(f.toolCalls, 'tool call')} failed`
        : `all ${plural(f.toolCalls, 'tool call')} succeeded`,
    );
  const blocked = ctx.facts.toolCalls.filter((c) => c.status === 'not_run').length;
  if (blocked > 0) parts.push(`${plural(blocked, 'call')} stopped by a guardrail`);
  return { status, text: `${parts.join('; ')}.` };
}

/** The summary paragraph, input, outcome and figures. Pure. */
export function buildSummary(ctx: AnalysisContext, items: readonly ActionItem[]): IntelligenceSummary {
  const f = ctx.figures;
  const outcome = outcomeOf(ctx);
  const counts: Record<string, number> = {};
  for (const [tool, t] of Object.entries(f.toolCallsByTool)) counts[tool] = t.calls;
  const sentences: string[] = [];
  sentences.push(ctx.facts.task ? `Asked: "${clip(ctx.facts.task, 200)}".` : 'The request is not recorded.');
  // A replay without the source's timing lasts as long as the replay, not the agent: no duration.
  const over = f.timing === 'replay' ? '' : ` over ${duration(f.durationMs)}`;
  sentences.push(
    f.toolCalls > 0
      ? `The agent made ${plural(f.toolCalls, 'tool call')} (${counted(counts, 4)})${over}.`
      : f.timing === 'replay'
        ? 'The agent made no tool calls.'
        : `The agent made no tool calls (${duration(f.durationMs)}).`,
  );
  if (f.timing === 'replay')
    sentences.push("Replayed from a log without timing: the durations are the replay's, not the agent's.");
  sentences.push(outcome.text);
  const urgent = items.filter((i) => i.severity === 'critical' || i.severity === 'high');
  if (urgent.length > 0)
    sentences.push(
      `Look at: ${listOf(
        urgent.map((i) => i.title),
        3,
      )}.`,
    );
  const medium = items.filter((i) => i.severity === 'medium');
  if (urgent.length === 0 && medium.length > 0)
    sentences.push(
      `Worth a look: ${listOf(
        medium.map((i) => i.title),
        3,
      )}.`,
    );
  else if (urgent.length === 0 && items.length > 0)
    sentences.push(`${plural(items.length, 'minor action item')}.`);
  if (f.lostEvents > 0) sentences.push(`${plural(f.lostEvents, 'event')} lost on the way.`);
  return { text: sentences.join(' '), input: ctx.facts.task, outcome, figures: f };
}
