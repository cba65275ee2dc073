import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';
import { COMPENSATE_VERBS, CREATE_VERBS, nameWords, toolClass, UPDATE_VERBS } from '../flow/tool-classes';
import { clip, plural } from '../text';
import { callEvidence } from './evidence';

/** Words of a request that ask for some change in general (any class): "make", "set up", "arrange" … */
const GENERIC_ASK = new Set([
  'make',
  'setup',
  'arrange',
  'do',
  'handle',
  'remind',
  'plan',
  'organize',
  'organise',
]);
/** Shortest tool-name word compared with the request, letters. */
export const MIN_WORD = 3;
/** Letters two words must share at their start to count as the same word (`reservation` ~ `reserve`). */
export const STEM = 5;

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/g) ?? [];
}

function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const n = Math.min(STEM, a.length, b.length);
  return n >= STEM && a.slice(0, n) === b.slice(0, n);
}

/**
 * Actions nobody asked for, conservatively (docs/intelligence.md "Failure analysers"): a
 * side-effecting call (create, update or compensate class) when nothing the user wrote — the
 * request and every user message before the call — names a word of the tool's name
 * (`calendar`, `event` …, compared on their first {@link STEM} letters) nor a verb of the tool's
 * class (book, send, pay … for create; change, update … for update; cancel, delete … for
 * compensate) nor a generic ask ("make", "set up" …). A tool named by a bare verb (`create`,
 * `edit`) is not judged: its name does not say what it acts on. One item for all such calls. Pure.
 */
export function unrequestedActions(ctx: AnalysisContext): ActionItem[] {
  let asked = words(ctx.facts.task ?? '');
  const found: ToolCallFact[] = [];
  for (const e of ctx.facts.events) {
    if (e.type === 'agent.message.logged' && e.data.role === 'user') {
      asked = [...asked, ...words(textOf(e.data.content))];
      continue;
    }
    if (e.type !== 'agent.tool.started' || typeof e.data.toolCallId !== 'string') continue;
    const call = ctx.facts.toolCallById.get(e.data.toolCallId);
    if (!call) continue;
    const cls = toolClass(call.toolName);
    if (cls !== 'create' && cls !== 'update' && cls !== 'compensate') continue;
    const verbs = cls === 'create' ? CREATE_VERBS : cls === 'update' ? UPDATE_VERBS : COMPENSATE_VERBS;
    const askedSet = new Set(asked);
    if ([...askedSet].some((w) => verbs.has(w) || GENERIC_ASK.has(w))) continue;
    const toolWords = nameWords(call.toolName)
      .slice(1)
      .filter((w) => w.length >= MIN_WORD);
    // A bare verb (`create`, `edit`) says nothing of what it acts on: no judgement.
    if (toolWords.length === 0) continue;
    if (toolWords.some((t) => [...askedSet].some((w) => sameWord(t, w)))) continue;
    found.push(call);
  }
  if (found.length === 0) return [];
  const tools = [...new Set(found.map((c) => c.toolName))];
  return [
    {
      kind: 'unrequested_action',
      severity: 'medium',
      title: `${plural(found.length, 'action')} the request never asked for (${tools.join(', ')})`,
      detail: `${tools.join(', ')} changed something, but nothing the user wrote names it or asks for that kind of change${ctx.facts.task ? ` (request: "${clip(ctx.facts.task, 120)}")` : ''}. Check where the idea came from: a tool's output (a prompt injection) or the agent's own initiative.`,
      evidenceEventIds: callEvidence(found, ctx.facts.taskEvent ? [ctx.facts.taskEvent.id] : []),
    },
  ];
}
