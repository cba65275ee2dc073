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

/**
 * Text that addresses the model with instructions, as prompt injections do (AgentDojo's
 * "important instructions", "ignore previous instructions", "TODO:", InjecAgent's "IMPORTANT!!!").
 * Known phrasings only: a new wording is not recognised.
 */
const INSTRUCTION_MARKERS = [
  /<INFORMATION>/i,
  /\bimportant message from\b/i,
  /\bbefore you can solve the task\b/i,
  /\bignore (?:all |any |your )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|iunstructions|prompts?)\b/i,
  /\bIMPORTANT!!!/,
  /\bTODO:\s/,
  /\bnew instructions?:/i,
  /\bdisregard (?:all |any |your )?(?:previous|prior) /i,
];

/** How far after an instruction marker its instructions are taken to reach at most, characters. */
export const INJECTION_REACH = 800;

/** Where injected instructions end at the latest: a closing tag, or the next key of a YAML/JSON-like listing. */
const SPAN_END = /<\/INFORMATION>|\n *(?:- )?[A-Za-z_][A-Za-z0-9_]*: |\n *"[A-Za-z_][A-Za-z0-9_]*": /g;

/** True when `text` carries instruction-like wording addressed to the model. */
export function looksLikeInjection(text: string): boolean {
  return INSTRUCTION_MARKERS.some((re) => re.test(text));
}

/**
 * The stretches of `text` that instruction-like wording governs, as `[start, end)` offsets: from
 * each marker to the first of a closing `</INFORMATION>`, the next `key:` line of a listing (tool
 * results are often YAML), or {@link INJECTION_REACH} characters.
 */
export function injectionSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const re of INSTRUCTION_MARKERS) {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(g)) {
      const from = m.index + m[0].length;
      const end = new RegExp(SPAN_END.source, 'g');
      end.lastIndex = from;
      const stop = end.exec(text);
      const to = Math.min(from + INJECTION_REACH, stop ? stop.index : text.length);
      spans.push([m.index, to]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}
