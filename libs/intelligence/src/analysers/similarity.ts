import { stableJson } from '../calls';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';

/** Longest text compared by edit distance, characters (longer texts are compared on their first part). */
export const MAX_COMPARED = 600;

/** Levenshtein distance of `a` and `b` (insert, delete, substitute: 1 each). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const cur = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur.push(Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** 1 − edit distance / longer length, over the first {@link MAX_COMPARED} characters: 1 = equal, 0 = nothing in common. */
export function textSimilarity(a: string, b: string): number {
  const x = a.slice(0, MAX_COMPARED);
  const y = b.slice(0, MAX_COMPARED);
  const n = Math.max(x.length, y.length);
  return n === 0 ? 1 : 1 - editDistance(x, y) / n;
}

/** What a call's arguments are compared by: the command of a one-argument call, else their stable JSON. */
export function argumentText(c: ToolCallFact): string {
  const values = Object.values(c.arguments);
  if (values.length === 1 && typeof values[0] === 'string') return values[0];
  return stableJson(c.arguments);
}

/** Similarity of two calls' arguments (see {@link textSimilarity}). */
export function argumentSimilarity(a: ToolCallFact, b: ToolCallFact): number {
  return textSimilarity(argumentText(a), argumentText(b));
}

/** Every `path=value` leaf of a JSON value (array positions kept), for comparing structured arguments. */
export function leafPairs(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leafPairs(x, `${path}[${i}]`));
  if (v && typeof v === 'object')
    return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) =>
      leafPairs(x, path ? `${path}.${k}` : k),
    );
  return [`${path}=${JSON.stringify(v) ?? 'null'}`];
}

/**
 * Argument names that identify the object a call acts on (`reservation_id`, `id`, `orderId`, `ids` …;
 * a trailing `_`, as in `id_`, which some APIs use to avoid a reserved word, is ignored).
 */
export function isIdArgument(key: string): boolean {
  const k = key.replace(/_+$/, '');
  return /(^|_)ids?$/i.test(k) || /[a-z](Id|Ids|ID)$/.test(k);
}

/** The identifying arguments of a call (top-level `…_id` keys), as `key=value`. */
export function idArguments(c: ToolCallFact): string[] {
  return Object.entries(c.arguments)
    .filter(([k]) => isIdArgument(k))
    .map(([k, v]) => `${k}=${stableJson(v)}`)
    .sort();
}

/**
 * Generic marks of a failure in a tool's output text: a first line that starts with an error word,
 * or a shell/interpreter failure anywhere. Used for tools that report failure in their output
 * instead of raising (shells, many CLIs).
 */
const FAILED_START =
  /^\s*(error\b|errors\b|wrong\b|invalid\b|failed\b|failure\b|fatal\b|exception\b|usage:|permission denied|not found\b|no such\b|cannot\b|unable to\b)/i;
const FAILED_ANYWHERE =
  /(Traceback \(most recent call last\)|command not found|No such file or directory|SyntaxError:|syntax error|Permission denied|ModuleNotFoundError|NameError:|TypeError:|ValueError:)/;

/** True when the call failed, or completed with output that says it failed (see {@link FAILED_START}). */
export function looksFailed(c: ToolCallFact): boolean {
  if (c.status === 'failed') return true;
  if (c.status !== 'completed') return false;
  const text = textOf(c.result).slice(0, 2000);
  return FAILED_START.test(text) || FAILED_ANYWHERE.test(text);
}

/** The failure text of a call: its error, else the first line of its output. */
export function failureText(c: ToolCallFact): string {
  if (c.error) return c.error;
  const text = textOf(c.result).trim();
  return text.split('\n')[0] ?? text;
}
