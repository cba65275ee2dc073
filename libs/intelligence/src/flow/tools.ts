import { detectInstructions, findInstructionMatches } from '@agent-warden/contracts';

/**
 * Which tool calls are sensitive: they move money, send or publish data, grant access or change
 * credentials — where a recipient or target taken from untrusted tool output does harm. Judged
 * from the tool's name (the data carries no other description of a tool). Pure.
 */

/** Tools that send, publish, pay, share, invite or change credentials. */
const SENSITIVE = [
  /^send(_|$)/,
  /^post(_|$)/,
  /^share(_|$)/,
  /^invite(_|$)/,
  /^forward(_|$)/,
  /^reply(_|$)/,
  /^transfer(_|$)/,
  /^pay(_|$)/,
  /^wire(_|$)/,
  /^schedule_transaction$/,
  /^update_scheduled_transaction$/,
  /^update_password$/,
  /^create_calendar_event$/,
  /^add_calendar_event_participants$/,
  /^add_user/,
];

/** Tools that fetch a URL: a URL argument taken from untrusted output can leak data to its host. */
const FETCHES_URL = [/webpage/, /^browse/, /^fetch/, /^visit/, /^open_url/, /^http_/];

/** Tools whose effect cannot be undone without help: deletion, cancellation, credential changes. */
const DESTRUCTIVE = [
  /^delete(_|$)/,
  /^remove(_|$)/,
  /^cancel(_|$)/,
  /^drop(_|$)/,
  /^update_password$/,
  /^revoke(_|$)/,
];

/** True when calls of `tool` deserve a look at where their recipient/target came from. */
export function isSensitiveTool(tool: string): boolean {
  const t = tool.toLowerCase();
  return SENSITIVE.some((re) => re.test(t)) || FETCHES_URL.some((re) => re.test(t));
}

/** True when `tool` only fetches a URL (sensitive for its URL arguments only). */
export function fetchesUrl(tool: string): boolean {
  const t = tool.toLowerCase();
  return FETCHES_URL.some((re) => re.test(t)) && !SENSITIVE.some((re) => re.test(t));
}

/** True when `tool` deletes, cancels or revokes something. */
export function isDestructiveTool(tool: string): boolean {
  const t = tool.toLowerCase();
  return DESTRUCTIVE.some((re) => re.test(t));
}

/** How far after a matched instruction feature its instructions are taken to reach at most, characters. */
export const INJECTION_REACH = 800;

/** How far before a matched feature, on its own line, the instructions are taken to start at most, characters. */
export const INJECTION_LEAD = 200;

/** Where injected instructions end at the latest: the next key of a YAML/JSON-like listing (tool results are often YAML). */
const SPAN_END = /\n *(?:- )?[A-Za-z_][A-Za-z0-9_]*: |\n *"[A-Za-z_][A-Za-z0-9_]*": /g;

/**
 * True when `text` carries instructions aimed at the model, as the shared detector judges it
 * (`detectInstructions`, docs/provenance.md "Instructions aimed at the model"): generic features
 * of prompt injection, weighted, none keyed on one benchmark's wording.
 */
export function looksLikeInjection(text: string): boolean {
  return detectInstructions(text).instructions;
}

/**
 * The stretches of `text` that injected instructions govern, as `[start, end)` offsets into
 * `text.normalize('NFKC')` (equal to `text` for NFKC text): empty unless the whole text carries
 * instructions ({@link looksLikeInjection}); else, for each match of a detector rule
 * (`findInstructionMatches`), from the start of its line (at most {@link INJECTION_LEAD}
 * characters back) to the first of the next `key:` line of a listing or {@link INJECTION_REACH}
 * characters after the match. Sorted by start.
 */
export function injectionSpans(text: string): [number, number][] {
  if (!looksLikeInjection(text)) return [];
  const norm = text.normalize('NFKC');
  const spans: [number, number][] = [];
  for (const m of findInstructionMatches(norm)) {
    const lineStart = norm.lastIndexOf('\n', m.start - 1) + 1;
    const from = Math.max(lineStart, m.start - INJECTION_LEAD);
    const end = new RegExp(SPAN_END.source, 'g');
    end.lastIndex = m.end;
    const stop = end.exec(norm);
    spans.push([from, Math.min(m.end + INJECTION_REACH, stop ? stop.index : norm.length)]);
  }
  return spans.sort((a, b) => a[0] - b[0]);
}
