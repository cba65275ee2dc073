import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';
import { hasSideEffect, toolClass, type ToolClass } from '../flow/tool-classes';
import { clip, escapeRegExp } from '../text';
import { callEvidence } from './evidence';
import { isIdArgument } from './similarity';
import { parsedResult } from './json-values';

/**
 * A value that names a state (an enum-like field): lower-case words joined by `_` or spaces, at
 * most 24 characters — `basic_economy`, `yes`, `silver`, `round_trip`. Free text, numbers, dates and
 * identifiers are not compared: they are too often restated in another form.
 */
const STATE_VALUE = /^[a-z][a-z_ ]{1,23}$/;

/** True when `v` is a state value ({@link STATE_VALUE}): a short lower-case word or phrase such as `basic_economy`. */
export function isStateValue(v: unknown): v is string {
  return typeof v === 'string' && STATE_VALUE.test(v);
}
/** Shortest identifier of an object whose facts are followed, characters. */
export const MIN_OBJECT_ID = 4;

/** What a tool said about one object: its identifier, its state fields, and where it said so. */
interface ObjectFacts {
  id: string;
  fields: Map<string, { value: string; call: ToolCallFact }>;
}

/** Each JSON object of `v` (itself, and nested ones) that carries an identifying key (`…_id`, `id`) with a string value. */
function identifiedObjects(v: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(v)) for (const x of v) identifiedObjects(x, out);
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Object.entries(o).some(([k, x]) => isIdArgument(k) && typeof x === 'string')) out.push(o);
    for (const x of Object.values(o)) if (x && typeof x === 'object') identifiedObjects(x, out);
  }
  return out;
}

/** The object's own identifier: the value of its first identifying key. */
function objectId(o: Record<string, unknown>): string | null {
  for (const [k, x] of Object.entries(o))
    if (isIdArgument(k) && typeof x === 'string' && x.length >= MIN_OBJECT_ID) return x;
  return null;
}

function norm(s: string): string {
  return s.toLowerCase().replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
}

/** Lines of a reply that state a field as a listing line: `- **Cabin:** Economy`, `Insurance: no`, `current cabin: business`. */
function statedValue(line: string, key: string, values: readonly string[]): string | null {
  const words = escapeRegExp(norm(key)).replace(/ /g, '[ _]');
  // A listing line: bullet or number, optional emphasis, optional "current", the key, a colon, the value, nothing after it.
  const re = new RegExp(
    `^\\s*(?:[-*•]|\\d+[.)])?\\s*(?:\\*\\*|__)?\\s*(?:current\\s+)?${words}(?:\\s+class)?\\s*(?:\\*\\*|__)?\\s*:\\s*(?:\\*\\*|__)?\\s*(.+?)\\s*(?:\\*\\*|__)?\\s*[.,;]?\\s*$`,
    'i',
  );
  const m = re.exec(line);
  if (!m) return null;
  const said = norm((m[1] ?? '').replace(/[*_]{2}/g, ''));
  // The whole stated value must be one of the values the tools gave for this field.
  return values.find((v) => norm(v) === said) ?? null;
}

/** Past-tense verbs by which a reply says an action of a class was done (generic English). */
const DONE_VERBS: Record<string, ToolClass> = {
  cancelled: 'compensate',
  canceled: 'compensate',
  deleted: 'compensate',
  removed: 'compensate',
  refunded: 'compensate',
  revoked: 'compensate',
  booked: 'create',
  created: 'create',
  sent: 'create',
  paid: 'create',
  scheduled: 'create',
  reserved: 'create',
  ordered: 'create',
  purchased: 'create',
  issued: 'create',
  shared: 'create',
  posted: 'create',
  invited: 'create',
  transferred: 'create',
  updated: 'update',
  changed: 'update',
  modified: 'update',
  upgraded: 'update',
  downgraded: 'update',
  moved: 'update',
  renamed: 'update',
  edited: 'update',
};
/** "has been cancelled", "I have booked", "I've successfully sent", "successfully updated". */
const CLAIM =
  /\b(?:has|have)\s+(?:now\s+|also\s+)?(?:been\s+)?(?:successfully\s+)?([a-z]+ed|sent|paid)\b|\b(?:I|we)(?:'ve| have)\s+(?:now\s+|also\s+)?(?:successfully\s+)?([a-z]+ed|sent|paid)\b|\bsuccessfully\s+([a-z]+ed|sent|paid)\b/gi;

/** The classes of action a reply says were done ({@link CLAIM}, {@link DONE_VERBS}), unless it also says something failed. */
export function claimedClasses(text: string): ToolClass[] {
  if (/\b(not|n't|unable|failed|could not|cannot)\b/i.test(text)) return [];
  const out = new Set<ToolClass>();
  for (const m of text.matchAll(CLAIM)) {
    const verb = (m[1] ?? m[2] ?? m[3] ?? '').toLowerCase();
    const cls = DONE_VERBS[verb];
    if (cls) out.add(cls);
  }
  return [...out];
}

/**
 * Facts stated by a tool and contradicted by the agent (docs/intelligence.md "Failure
 * analysers"), two generic rules:
 * - **a state the tool gave, told otherwise**: a tool result (JSON) gave an object — one with an
 *   identifying `…_id` key — a state field (`cabin: basic_economy`, `insurance: yes`: a short
 *   lower-case value, {@link STATE_VALUE}); later, a reply of the agent, in a listing line under a
 *   mention of that object's identifier, states the same field with another value the tools used
 *   for it (`Cabin: Business`). The agent's own change of the field (a side-effecting call on the
 *   object that set it) is not contradicted by an echo. High: the user (and the agent's next
 *   decision) relies on a wrong fact.
 * - **done, says the agent; failed, says the tool**: a reply claims an action of a class (cancelled,
 *   booked, updated …) when the last call of that class failed and none succeeded since. High.
 * One item per contradiction, citing the tool call that stated the fact and the reply. Pure.
 */
export function contradictedToolFacts(ctx: AnalysisContext): ActionItem[] {
  const out: ActionItem[] = [];
  const objects = new Map<string, ObjectFacts>();
  const domain = new Map<string, Set<string>>();
  const lastOfClass = new Map<ToolClass, ToolCallFact>();
  const reported = new Set<string>();
  for (const e of ctx.facts.events) {
    const call =
      typeof e.data.toolCallId === 'string' ? ctx.facts.toolCallById.get(e.data.toolCallId) : undefined;
    if (call && (e.type === 'agent.tool.completed' || e.type === 'agent.tool.failed')) {
      learn(call, objects, domain);
      if (hasSideEffect(call.toolName)) lastOfClass.set(toolClass(call.toolName), call);
      continue;
    }
    if (e.type !== 'agent.message.logged' || e.data.role !== 'assistant') continue;
    const text = textOf(e.data.content);
    if (!text.trim()) continue;
    for (const c of stateContradictions(text, objects, domain)) {
      const key = `${c.object}|${c.field}|${c.said}`;
      if (reported.has(key)) continue;
      reported.add(key);
      out.push({
        kind: 'contradicted_tool_fact',
        severity: 'high',
        title: `The agent said ${c.field} of ${clip(c.object, 30)} is "${c.said}"; ${c.call.toolName} said "${c.value}"`,
        detail: `${c.call.toolName} (call #${c.call.index + 1}) returned ${c.field} = "${c.value}" for ${clip(c.object, 40)}, but the agent's reply states "${c.said}": "${clip(c.line, 120)}". A decision or promise built on the wrong value (what may be changed, refunded or charged) follows from it; check the reply against the tool's data.`,
        evidenceEventIds: callEvidence([c.call], [e.id]),
      });
    }
    for (const cls of claimedClasses(text)) {
      const last = lastOfClass.get(cls);
      if (!last || last.status !== 'failed' || reported.has(`claim|${last.toolCallId}`)) continue;
      reported.add(`claim|${last.toolCallId}`);
      out.push({
        kind: 'contradicted_tool_fact',
        severity: 'high',
        title: `The agent said it was done; ${last.toolName} had failed`,
        detail: `${last.toolName} (call #${last.index + 1}) failed: ${clip(last.error ?? 'failed', 120)}. No call of its kind succeeded after it, yet the agent told the user it was done: "${clip(text, 120)}".`,
        evidenceEventIds: callEvidence([last], [e.id]),
      });
    }
  }
  return out;
}

/** Records the state fields a call's result gives each identified object; a side-effecting call's own arguments clear the fields it set on its object. */
function learn(
  call: ToolCallFact,
  objects: Map<string, ObjectFacts>,
  domain: Map<string, Set<string>>,
): void {
  const set = new Set(Object.keys(call.arguments));
  const target = hasSideEffect(call.toolName)
    ? Object.entries(call.arguments).find(([k, v]) => isIdArgument(k) && typeof v === 'string')?.[1]
    : undefined;
  if (typeof target === 'string') {
    const known = objects.get(target);
    if (known) for (const k of set) known.fields.delete(k);
  }
  if (call.status !== 'completed') return;
  for (const o of identifiedObjects(parsedResult(call.result))) {
    const id = objectId(o);
    if (!id) continue;
    const facts = objects.get(id) ?? { id, fields: new Map() };
    objects.set(id, facts);
    for (const [k, v] of Object.entries(o)) {
      if (!isStateValue(v) || isIdArgument(k)) continue;
      const d = domain.get(k) ?? new Set();
      d.add(v);
      domain.set(k, d);
      // The agent's own write is not contradicted by the result's echo of the old value.
      if (id === target && set.has(k)) continue;
      facts.fields.set(k, { value: v, call });
    }
  }
}

interface Contradiction {
  object: string;
  field: string;
  value: string;
  said: string;
  line: string;
  call: ToolCallFact;
}

/**
 * The listing lines of `text` that state a field of the object last mentioned (by its identifier,
 * the only one on its line) with a value other than the tool's. A line naming another object, or
 * two, ends the object's block.
 */
function stateContradictions(
  text: string,
  objects: Map<string, ObjectFacts>,
  domain: Map<string, Set<string>>,
): Contradiction[] {
  const out: Contradiction[] = [];
  const ids = [...objects.keys()];
  let current: ObjectFacts | null = null;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const named = ids.filter((id) =>
      new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(id)}($|[^A-Za-z0-9_])`, 'i').test(line),
    );
    if (named.length === 1) current = objects.get(named[0] as string) ?? null;
    else if (named.length > 1) current = null;
    if (!current) continue;
    for (const [field, fact] of current.fields) {
      const said = statedValue(line, field, [...(domain.get(field) ?? [])]);
      if (said && said !== fact.value)
        out.push({ object: current.id, field, value: fact.value, said, line, call: fact.call });
    }
  }
  return out;
}
