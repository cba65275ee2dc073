import type { ActionItem } from '@agent-warden/contracts';
import type { AnalysisContext } from '../context';
import type { ToolCallFact } from '../facts';
import { textOf } from '../flow/identifiers';
import { toolClass } from '../flow/tool-classes';
import { clip, escapeRegExp } from '../text';
import { callEvidence } from './evidence';
import { isStateValue } from './contradictions';
import { looksFailed } from './similarity';
import { confirms } from './unconfirmed';
import { leafValues, parsedResult } from './json-values';

/** An identifier-like argument value: a one-word string of ≥ 4 characters with a digit (a code, a date, an id). */
const ID_LIKE = /^(?=.*\d)[\w.:/-]{4,64}$/;

/** The `key → values` of every state-valued field of a JSON value (any depth). */
function addStateFields(v: unknown, into: Map<string, Set<string>>): void {
  if (Array.isArray(v)) for (const x of v) addStateFields(x, into);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (isStateValue(x)) {
        const set = into.get(k) ?? new Set<string>();
        set.add(x);
        into.set(k, set);
      } else addStateFields(x, into);
    }
}

/** True when `line` names `value` as words (`basic_economy` ~ "Basic Economy"). */
function names(line: string, value: string): boolean {
  const words = value.split(/[_ ]+/).map(escapeRegExp);
  return new RegExp(`\\b${words.join('[\\s_-]+')}\\b`, 'i').test(line);
}

/** Identifier-like values among a call's argument leaves. */
function idValues(c: ToolCallFact): string[] {
  return leafValues(c.arguments).filter((s) => ID_LIKE.test(s));
}

interface Deviation {
  key: string;
  called: string;
  agreed: string;
  line: string;
}

/** Lines of the proposal that name one of the call's identifiers and another value of a state field than the call set. */
function deviations(c: ToolCallFact, proposal: string, fields: Map<string, Set<string>>): Deviation[] {
  const ids = idValues(c);
  if (ids.length === 0) return [];
  const lines = proposal.split('\n').filter((l) => ids.some((id) => l.includes(id)));
  const out: Deviation[] = [];
  for (const [key, v] of Object.entries(c.arguments)) {
    if (!isStateValue(v)) continue;
    const others = [...(fields.get(key) ?? [])].filter((o) => o !== v).sort((a, b) => b.length - a.length);
    if (others.length === 0) continue;
    for (const line of lines) {
      if (names(line, v)) continue;
      const agreed = others.find((o) => names(line, o));
      if (agreed) {
        out.push({ key, called: v, agreed, line: line.trim() });
        break;
      }
    }
  }
  return out;
}

/**
 * A call that differs from the plan the user agreed to (docs/intelligence.md "Failure analysers"):
 * the agent's last message before a create- or update-class call set out the plan, the user's
 * reply agreed ({@link confirms}), and a line of that plan names one of the call's identifiers
 * (a code, a date, an id among its arguments) together with a value of a state field — a short
 * word the session's tools use for that field, such as a cabin or a tier — other than the one the
 * call set for it, without naming the call's value. The agent told the user one thing and did
 * another for that item. One item per call, citing the call, the plan and the agreement. High.
 * Pure.
 */
export function agreedPlanDeviations(ctx: AnalysisContext): ActionItem[] {
  const fields = new Map<string, Set<string>>();
  const calls = new Map<string, ToolCallFact>();
  for (const c of ctx.facts.toolCalls) if (c.started) calls.set(c.started.id, c);
  let plan: { id: string; text: string } | null = null;
  let agreement: { id: string } | null = null;
  const out: ActionItem[] = [];
  for (const e of ctx.facts.events) {
    if (e.type === 'agent.message.logged') {
      const text = textOf(e.data.content);
      if (e.data.role === 'assistant' && text.trim() !== '') {
        plan = { id: e.id, text };
        agreement = null;
      } else if (e.data.role === 'user') agreement = plan && confirms(text) ? { id: e.id } : null;
      continue;
    }
    const c = calls.get(e.id);
    if (!c) continue;
    const cls = toolClass(c.toolName);
    if (
      plan &&
      agreement &&
      (cls === 'create' || cls === 'update') &&
      c.status === 'completed' &&
      !looksFailed(c)
    ) {
      const [d] = deviations(c, plan.text, fields);
      if (d)
        out.push({
          kind: 'differs_from_agreed_plan',
          severity: 'high',
          title: `${c.toolName} set ${d.key} ${d.called} where the plan the user agreed to said ${d.agreed}`,
          detail: `The agent's plan said "${clip(d.line, 120)}" and the user agreed; ${c.toolName} (call #${c.index + 1}) then set ${d.key} to ${d.called} for it. The user got another change than the one agreed.`,
          evidenceEventIds: callEvidence([c], [plan.id, agreement.id]),
        });
    }
    if (c.status !== 'completed') continue;
    addStateFields(c.arguments, fields);
    addStateFields(parsedResult(c.result), fields);
  }
  return out;
}
