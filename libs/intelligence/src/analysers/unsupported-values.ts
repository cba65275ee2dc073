import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';
import { hasSideEffect } from '../flow/tool-classes';
import { clip, listOf } from '../text';
import { callEvidence } from './evidence';

/** Smallest number judged: smaller ones (counts, 0/1 flags) are too common to say anything. */
export const MIN_NUMBER = 10;
/** Longest string value judged, characters (longer ones are free text). */
export const MAX_VALUE = 64;

/** A data value worth tracing: a number ≥ {@link MIN_NUMBER}, or a one-word string with a digit (an id, a date, an amount, a code). */
function dataValue(v: unknown): string | null {
  if (typeof v === 'number') return Number.isFinite(v) && Math.abs(v) >= MIN_NUMBER ? String(v) : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (s.length < 3 || s.length > MAX_VALUE || /\s/.test(s) || !/\d/.test(s)) return null;
  return s;
}

/** Every scalar leaf of a JSON value, with its key. */
function leaves(v: unknown, key = ''): [string, unknown][] {
  if (Array.isArray(v)) return v.flatMap((x) => leaves(x, key));
  if (v && typeof v === 'object')
    return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, k));
  return [[key, v]];
}

/** Numbers in a text (`1,234.50` → 1234.5). */
function numbersIn(text: string): number[] {
  return (text.match(/\d[\d,]*(?:\.\d+)?/g) ?? [])
    .map((s) => Number(s.replace(/,/g, '')))
    .filter(Number.isFinite);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * True when `value` was seen in another form: a URL without its scheme, or an ISO date
 * (`2025-01-11`) written with its month's name or as month/day ("January 11th", "the 11th to the
 * 15th of January", "1/11").
 */
function seenInAnotherForm(value: string, seen: string): boolean {
  const bare = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  if (bare !== value && seen.includes(bare)) return true;
  const d = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!d) return false;
  const month = Number(d[2]);
  const day = Number(d[3]);
  const name = MONTHS[month - 1] ?? 'none';
  const dd = `0?${day}(?:st|nd|rd|th)?`;
  // "January 11th", "Jan 11", "11th of January", "the 13th to the 17th of May", "1/11", "01-11".
  return new RegExp(
    `\\b${name}[a-z]*\\.?\\s+${dd}\\b|\\b${dd}\\b[^.\\n]{0,25}?\\b${name}|(^|\\D)0?${month}[/.-]0?${day}(\\D|$)`,
  ).test(seen.toLowerCase());
}

/** True when `n` is a number seen, or the sum or difference of two numbers seen (an amount the agent worked out). */
function derivable(n: number, seen: ReadonlySet<number>): boolean {
  if (seen.has(n)) return true;
  const list = [...seen];
  for (const a of list) if (seen.has(n - a) || seen.has(a - n)) return true;
  return false;
}

/**
 * Values the agent made up (docs/intelligence.md "Failure analysers"): a side-effecting call
 * (create, update or compensate class) that completed with an argument value — an identifier, a
 * date, an amount ({@link dataValue}) — that appears nowhere before it: not in the user's messages,
 * not in a tool result, not in an earlier call's arguments nor in the agent's own messages; a
 * number counts as seen when it is a number seen or the sum or difference of two (worked out). The
 * user's request (the session's input summary) counts only when the session logs no user message.
 * A URL counts as seen without its scheme, an ISO date when its month and day were named
 * ("January 11th"). A value with no origin in the session was invented (a date of birth, a
 * payment split, an id, a date nobody gave).
 * Medium. One item for all such values. Pure.
 */
export function unsupportedValues(ctx: AnalysisContext): ActionItem[] {
  let seenText = '';
  const seenNumbers = new Set<number>();
  const see = (text: string) => {
    seenText += `\n${text}`;
    for (const n of numbersIn(text)) seenNumbers.add(n);
  };
  const hasUser = ctx.facts.events.some((e) => e.type === 'agent.message.logged' && e.data.role === 'user');
  if (!hasUser && ctx.facts.task) see(ctx.facts.task);
  const found: { call: ToolCallFact; key: string; value: string }[] = [];
  for (const e of ctx.facts.events) {
    if (e.type === 'agent.message.logged') {
      see(textOf(e.data.content));
      continue;
    }
    const call =
      typeof e.data.toolCallId === 'string' ? ctx.facts.toolCallById.get(e.data.toolCallId) : undefined;
    if (!call) continue;
    if (e.type === 'agent.tool.started') {
      if (call.status === 'completed' && hasSideEffect(call.toolName)) {
        for (const [key, raw] of leaves(call.arguments)) {
          const value = dataValue(raw);
          if (!value || seenText.includes(value) || seenInAnotherForm(value, seenText)) continue;
          if (typeof raw === 'number' && derivable(raw, seenNumbers)) continue;
          found.push({ call, key, value });
        }
      }
      see(textOf(call.arguments));
    } else if (e.type === 'agent.tool.completed' || e.type === 'agent.tool.failed') {
      see(textOf(e.type === 'agent.tool.completed' ? e.data.result : e.data.error));
    }
  }
  if (found.length === 0) return [];
  const what = found.map((f) => `${f.call.toolName}.${f.key} = ${clip(f.value, 40)}`);
  return [
    {
      kind: 'unsupported_value',
      severity: 'medium',
      title: `${listOf(what, 3)}: a value nothing in the session gave`,
      detail: `The agent changed something with ${listOf(what, 5)}, but no user message, tool result or earlier step holds ${found.length === 1 ? 'that value' : 'those values'} (numbers: nor a sum or difference of two seen). The agent made ${found.length === 1 ? 'it' : 'them'} up: check ${found.length === 1 ? 'it' : 'them'} against what the user asked and what the tools said.`,
      evidenceEventIds: callEvidence(found.map((f) => f.call)),
    },
  ];
}
