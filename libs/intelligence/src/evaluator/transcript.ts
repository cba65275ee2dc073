import { stableJson } from '../calls';
import { buildFacts, type SessionFacts, type ToolCallFact } from '../facts';
import { clip } from '../text';
import type { SessionInput } from '../types';

/** One numbered line of a transcript and the events it stands for. */
export interface TranscriptEntry {
  /** The number the model cites (`[n]` in the text), from 1, in session order. */
  ref: number;
  /** Ids of the session's events the line shows (a tool call: its evaluation, start and end). */
  eventIds: string[];
  line: string;
}

/** A session written out for the model: numbered lines, and the events behind each number. */
export interface Transcript {
  text: string;
  entries: TranscriptEntry[];
  /** Entries left out of `text` (the middle of a session longer than the cap). */
  omitted: number;
}

/** Longest message text in a line, characters. */
const MESSAGE_MAX = 3_000;
/** Successively shorter caps of a tool result, characters, tried until the transcript fits. */
const RESULT_CAPS = [1_200, 400, 120] as const;

function resultText(c: ToolCallFact, cap: number): string {
  if (c.status === 'failed') return `→ error: ${clip(c.error ?? stableJson(c.result), cap)}`;
  if (c.status === 'not_run') return '→ not run (stopped by a guardrail)';
  if (c.status === 'unfinished') return '→ no result recorded';
  const r = typeof c.result === 'string' ? c.result : stableJson(c.result ?? null);
  return `→ ${clip(r, cap)}`;
}

/** The transcript's lines before numbering: one per message, tool call, approval and outcome. */
function lines(facts: SessionFacts, cap: number): { eventIds: string[]; line: string }[] {
  const callByAnchor = new Map(facts.toolCalls.map((c) => [c.anchor.id, c]));
  const out: { eventIds: string[]; line: string }[] = [];
  const hasUserMessage = facts.events.some(
    (e) => e.type === 'agent.message.logged' && e.data.role === 'user',
  );
  if (!hasUserMessage && facts.task)
    out.push({
      eventIds: facts.taskEvent ? [facts.taskEvent.id] : [],
      line: `request: ${clip(facts.task, MESSAGE_MAX)}`,
    });
  for (const e of facts.events) {
    const call = callByAnchor.get(e.id);
    if (call) {
      out.push({
        eventIds: call.eventIds,
        line: `call ${call.toolName}(${clip(stableJson(call.arguments), cap)}) ${resultText(call, cap)}`,
      });
      continue;
    }
    const d = e.data;
    if (e.type === 'agent.message.logged' && d.role !== 'tool') {
      out.push({
        eventIds: [e.id],
        line: `${String(d.role)}: ${clip(String(d.content ?? ''), MESSAGE_MAX)}`,
      });
    } else if (e.type === 'agent.action.performed') {
      const details = d.details ? ` ${clip(stableJson(d.details), cap)}` : '';
      out.push({ eventIds: [e.id], line: `action ${String(d.actionType)} ${String(d.name)}${details}` });
    } else if (e.type === 'agent.approval.resolved') {
      out.push({
        eventIds: [e.id],
        line: `approval ${String(d.status)}${d.comment ? `: ${clip(String(d.comment), 200)}` : ''}`,
      });
    } else if (e.type === 'agent.run.completed' && d.status === 'failed') {
      out.push({
        eventIds: [e.id],
        line: `run failed${d.error ? `: ${clip(stableJson(d.error), 300)}` : ''}`,
      });
    } else if (e.type === 'agent.session.ended') {
      out.push({ eventIds: [e.id], line: `session ended: ${String(d.status ?? 'completed')}` });
    }
  }
  return out;
}

/**
 * Writes one session out as numbered lines for a model evaluator (docs/intelligence.md "The model
 * evaluator"): system, user and assistant messages, each tool call with its arguments and result
 * (or error), actions performed outside tools, approvals resolved, a failed run and the session's
 * end; the request (input summary) first when no user message was logged. The text fits in `maxChars` characters: tool results are
 * cut to 1,200, then 400, then 120 characters, and if that is not enough the middle of the session
 * is left out (the first third and the last two thirds of the budget are kept, with a line saying
 * how many entries are missing). Pure.
 */
export function buildTranscript(input: SessionInput, maxChars: number): Transcript {
  const facts = buildFacts(input);
  const shown = (e: TranscriptEntry) => `[${e.ref}] ${e.line}`;
  const size = (es: TranscriptEntry[]) => es.reduce((n, e) => n + shown(e).length + 1, 0);
  let entries: TranscriptEntry[] = [];
  for (const cap of RESULT_CAPS) {
    entries = lines(facts, cap).map((l, i) => ({ ref: i + 1, ...l }));
    if (size(entries) <= maxChars) break;
  }
  if (size(entries) <= maxChars) return { text: entries.map(shown).join('\n'), entries, omitted: 0 };

  const head: TranscriptEntry[] = [];
  let used = 0;
  for (const e of entries) {
    const n = shown(e).length + 1;
    if (used + n > maxChars / 3) break;
    head.push(e);
    used += n;
  }
  const tail: TranscriptEntry[] = [];
  for (let i = entries.length - 1; i >= head.length; i--) {
    const n = shown(entries[i]!).length + 1;
    if (used + n > maxChars - 60) break;
    tail.unshift(entries[i]!);
    used += n;
  }
  const omitted = entries.length - head.length - tail.length;
  const text = [...head.map(shown), `… ${omitted} entries left out …`, ...tail.map(shown)].join('\n');
  return { text, entries, omitted };
}
