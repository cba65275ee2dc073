import { PROVENANCE_ARGUMENT_FIELD } from '@agent-warden/contracts';
import { cut } from './describe';
import type { ArgumentProvenanceInput, EvaluationInput, EvaluationProvenance } from './types';

/**
 * The data-flow fields of a policy (docs/guardrails.md "Data-flow conditions", docs/provenance.md):
 * their getters, the value rules validation adds, and the facts a reason states about them.
 *
 * A request's provenance is summarised once per provenance object (a `WeakMap`), whatever the
 * number of conditions and policies that read it: counting tainted leaves and finding a leaf by
 * its path then cost one map lookup per condition, like any other field.
 */

/** The origins of an argument leaf (contracts' `ArgumentOrigin`). */
export const ORIGINS: readonly string[] = ['user', 'tool', 'both', 'none'];

/** Prefix of the per-leaf origin field. */
const ARGUMENT_PREFIX = 'provenance.arguments.';

/** What a policy reads of one request's provenance, computed once. */
interface Summary {
  /** Leaves with `tainted: true`. */
  tainted: number;
  /** Leaves with `tainted` and `instructed` both true. */
  instructed: number;
  /** Leaves by path (the first entry of a path wins). */
  byPath: Map<string, ArgumentProvenanceInput>;
  /** The tainted leaves, in the order the client sent them. */
  taintedLeaves: ArgumentProvenanceInput[];
}

const SUMMARIES = new WeakMap<object, Summary>();

function summarise(p: EvaluationProvenance): Summary {
  const byPath = new Map<string, ArgumentProvenanceInput>();
  const taintedLeaves: ArgumentProvenanceInput[] = [];
  let instructed = 0;
  const args = p.arguments;
  if (Array.isArray(args)) {
    for (const a of args as unknown[]) {
      if (a === null || typeof a !== 'object') continue;
      const leaf = a as ArgumentProvenanceInput;
      if (typeof leaf.path === 'string' && !byPath.has(leaf.path)) byPath.set(leaf.path, leaf);
      if (leaf.tainted === true) {
        taintedLeaves.push(leaf);
        if (leaf.instructed === true) instructed += 1;
      }
    }
  }
  return { tainted: taintedLeaves.length, instructed, byPath, taintedLeaves };
}

/** The summary of `input.provenance`, or undefined when the input carries none (or not an object). */
function summaryOf(input: EvaluationInput): Summary | undefined {
  const p = input.provenance;
  if (p === null || typeof p !== 'object') return undefined;
  let s = SUMMARIES.get(p);
  if (s === undefined) {
    s = summarise(p);
    SUMMARIES.set(p, s);
  }
  return s;
}

/** The kind of a data-flow field: a count (a non-negative integer) or a leaf's origin. */
export type ProvenanceFieldKind = 'count' | 'origin';

/** The data-flow field `field` is, or undefined for any other field. */
export function provenanceFieldKind(field: string): ProvenanceFieldKind | undefined {
  if (field === 'provenance.tainted' || field === 'provenance.instructed') return 'count';
  if (field === 'session.untrustedInstructions') return 'count';
  if (PROVENANCE_ARGUMENT_FIELD.test(field)) return 'origin';
  return undefined;
}

/** Reads one field of an input (`fields.ts`' `FieldGetter`). */
type Getter = (input: EvaluationInput) => unknown;

/**
 * The getter of a data-flow field, or undefined for another field:
 * - `provenance.tainted` / `provenance.instructed`: the number of tainted / instructed leaves;
 * - `session.untrustedInstructions`: the session's count (0 when the provenance has no session part);
 * - `provenance.arguments.<path>`: the leaf's `origin` string, undefined when not reported.
 *
 * Every one is undefined when the input carries no provenance (so `gte 1` is false and `exists`
 * is false). Never throws, whatever the shape of the provenance.
 */
export function provenanceGetter(field: string): Getter | undefined {
  switch (field) {
    case 'provenance.tainted':
      return (i) => summaryOf(i)?.tainted;
    case 'provenance.instructed':
      return (i) => summaryOf(i)?.instructed;
    case 'session.untrustedInstructions':
      return (i) => {
        const p = i.provenance;
        if (p === null || typeof p !== 'object') return undefined;
        const n = p.session?.untrustedInstructions;
        return typeof n === 'number' && Number.isFinite(n) ? n : 0;
      };
  }
  if (!PROVENANCE_ARGUMENT_FIELD.test(field)) return undefined;
  const path = field.slice(ARGUMENT_PREFIX.length);
  return (i) => {
    const origin = summaryOf(i)?.byPath.get(path)?.origin;
    return typeof origin === 'string' ? origin : undefined;
  };
}

/** Operators that make sense on each kind of data-flow field (validated, docs/guardrails.md). */
export const PROVENANCE_OPS: Readonly<Record<ProvenanceFieldKind, readonly string[]>> = {
  count: ['eq', 'in', 'gte', 'lte', 'exists'],
  origin: ['eq', 'in', 'exists'],
};

/**
 * The value rule of a data-flow field, beyond the operator's own check: a count compares with
 * non-negative integers; an origin with `user`, `tool`, `both` or `none`. Returns the messages,
 * with the list index for an `in` member (`sub`).
 */
export function checkProvenanceValue(
  kind: ProvenanceFieldKind,
  op: string,
  value: unknown,
): { message: string; sub?: number }[] {
  if (op === 'exists') return [];
  const members = op === 'in' && Array.isArray(value) ? value : [value];
  const problems: { message: string; sub?: number }[] = [];
  members.forEach((v, k) => {
    const sub = op === 'in' ? k : undefined;
    if (kind === 'count') {
      if (typeof v === 'number' && (!Number.isInteger(v) || v < 0))
        problems.push({ message: 'a count is a non-negative integer', sub });
      else if (typeof v !== 'number')
        problems.push({ message: `a count compares with numbers, got ${JSON.stringify(v)}`, sub });
    } else if (typeof v !== 'string' || !ORIGINS.includes(v)) {
      problems.push({ message: `must be an origin: ${ORIGINS.join(', ')}`, sub });
    }
  });
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Facts: what a reason says about the data flow, naming paths and tools, never argument values.
// ---------------------------------------------------------------------------------------------

/** Most argument leaves a count's facts name; the rest are counted. */
const MAX_FACT_LEAVES = 3;

type Source = NonNullable<ArgumentProvenanceInput['sources']>[number];

function toolText(s: { toolName?: string; toolCallId?: string }): string {
  const name = typeof s.toolName === 'string' ? cut(s.toolName) : 'a tool';
  return typeof s.toolCallId === 'string' ? `${name} (call ${cut(s.toolCallId)})` : name;
}

/** `the output of read_file (call c1)` / `… of read_file (call c1) and get_webpage (call c2)`. */
function outputsText(sources: readonly Source[]): string {
  const tools = sources.filter((s) => s !== null && typeof s === 'object').map(toolText);
  if (tools.length === 0) return 'tool output';
  const list =
    tools.length === 1 ? tools[0] : `${tools.slice(0, -1).join(', ')} and ${tools[tools.length - 1]}`;
  return `the output of ${list}`;
}

/** One argument leaf's origin as a sentence, e.g. `arguments.recipient came from the output of read_file (call c1), not from the user's request`. */
export function leafFact(leaf: ArgumentProvenanceInput): string | undefined {
  if (typeof leaf.path !== 'string') return undefined;
  const name = `arguments.${cut(leaf.path)}`;
  const sources = Array.isArray(leaf.sources) ? leaf.sources : [];
  const instructed = leaf.instructed === true ? ', which carried instructions aimed at the model' : '';
  if (leaf.tainted === true) {
    const part = leaf.origin === 'both' ? `part of ${name}` : name;
    return `${part} came from ${outputsText(sources)}${instructed}, not from the user's request`;
  }
  switch (leaf.origin) {
    case 'user':
      return `${name} came from the user's request`;
    case 'both':
      return `${name} was named by the user and also appeared in ${outputsText(sources)}`;
    case 'tool':
      return `${name} came from ${outputsText(sources)}`;
    case 'none':
      return `${name} appeared in no input: the model wrote it`;
    default:
      return undefined;
  }
}

/** The facts of a count over leaves: each leaf (at most 3), then `and N more`. */
function leavesFacts(leaves: readonly ArgumentProvenanceInput[], what: string): string[] {
  const facts: string[] = [];
  for (const leaf of leaves.slice(0, MAX_FACT_LEAVES)) {
    const f = leafFact(leaf);
    if (f !== undefined) facts.push(f);
  }
  if (leaves.length > MAX_FACT_LEAVES)
    facts.push(`and ${leaves.length - MAX_FACT_LEAVES} more ${what} argument(s)`);
  return facts;
}

/** What the session saw: `the session received instructions aimed at the model in the output of get_webpage (call c3)`. */
function sessionFacts(p: EvaluationProvenance): string[] {
  const n = p.session?.untrustedInstructions;
  if (typeof n !== 'number' || !(n > 0)) return [];
  const last = p.session?.lastInstruction;
  const times = n === 1 ? '' : ` ${n} times, the latest`;
  const where =
    last !== null && typeof last === 'object' ? ` in the output of ${toolText(last)}` : ' in tool output';
  return [`the session received instructions aimed at the model${times}${where}`];
}

/**
 * The facts a reason adds for a condition on a data-flow field, computed from the input whatever
 * the operator (so a negated condition still says where the value came from), or undefined for
 * another field. Empty when the input carries nothing to say.
 */
export function provenanceFacts(field: string): ((input: EvaluationInput) => string[]) | undefined {
  switch (field) {
    case 'provenance.tainted':
      return (i) => leavesFacts(summaryOf(i)?.taintedLeaves ?? [], 'tainted');
    case 'provenance.instructed':
      return (i) =>
        leavesFacts(
          (summaryOf(i)?.taintedLeaves ?? []).filter((l) => l.instructed === true),
          'instructed',
        );
    case 'session.untrustedInstructions':
      return (i) => {
        const p = i.provenance;
        return p !== null && typeof p === 'object' ? sessionFacts(p) : [];
      };
  }
  if (!PROVENANCE_ARGUMENT_FIELD.test(field)) return undefined;
  const path = field.slice(ARGUMENT_PREFIX.length);
  return (i) => {
    const leaf = summaryOf(i)?.byPath.get(path);
    const f = leaf === undefined ? undefined : leafFact(leaf);
    return f === undefined ? [] : [f];
  };
}
