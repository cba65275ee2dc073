import type { ArgumentOrigin } from '@agent-warden/contracts';

/**
 * The data-flow fields of the policy editor (docs/guardrails.md "Data-flow conditions in the
 * dashboard", over the provenance of docs/provenance.md): what each one means, and the value it
 * takes.
 */

/** The origins an argument value can have (docs/provenance.md "Origin of a leaf"), in the editor's order. */
export const ORIGINS: readonly ArgumentOrigin[] = ['user', 'tool', 'both', 'none'];

/** What each origin means, for the editor's choices. */
export const ORIGIN_HELP: Record<ArgumentOrigin, string> = {
  user: "found in the user's request or messages",
  tool: 'found only in tool output (the user never named it)',
  both: 'found in what the user wrote and in tool output',
  none: 'found nowhere: the model wrote or computed it',
};

/** Prefix of the per-argument origin field, `provenance.arguments.<path>`. */
export const PROVENANCE_ARGUMENTS = 'provenance.arguments.';

/** How the editor offers a field's value: a count (a number ≥ 0), an origin, or free input. */
export type FieldValueKind = 'count' | 'origin';

/** A field's help line and value kind. */
export interface FieldHelp {
  /** One short sentence: what the field reads. */
  text: string;
  kind: FieldValueKind;
}

/** The data-flow fields with a fixed name. */
export const DATA_FLOW_FIELDS: Record<string, FieldHelp> = {
  'provenance.tainted': {
    text: 'How many argument values came from tool output that the user never named (0 when none).',
    kind: 'count',
  },
  'provenance.instructed': {
    text: 'How many tainted argument values came from a tool result that carried instructions aimed at the model.',
    kind: 'count',
  },
  'session.untrustedInstructions': {
    text: 'How many tool results of this session so far carried instructions aimed at the model.',
    kind: 'count',
  },
};

const ARGUMENT_HELP: FieldHelp = {
  text: 'Where the argument at this path came from: user, tool (tool output only), both, or none (the model wrote it). Pick one or more.',
  kind: 'origin',
};

/**
 * The argument path of a `provenance.arguments.<path>` field (`recipient`, `recipients.0`; `''`
 * while the path is not typed yet), else undefined.
 */
export function argumentPathOf(field: string): string | undefined {
  if (field === 'provenance.arguments') return '';
  return field.startsWith(PROVENANCE_ARGUMENTS) ? field.slice(PROVENANCE_ARGUMENTS.length) : undefined;
}

/** The help of a data-flow field (`provenance.*`, `session.untrustedInstructions`), else undefined. */
export function fieldHelp(field: string): FieldHelp | undefined {
  if (argumentPathOf(field) !== undefined) return ARGUMENT_HELP;
  return DATA_FLOW_FIELDS[field];
}

/** The origins a condition names: `eq "tool"` → `['tool']`, `in ["tool","both"]` → both; others → none. */
export function originsOf(op: string, value: unknown): ArgumentOrigin[] {
  const list = op === 'eq' ? [value] : op === 'in' && Array.isArray(value) ? value : [];
  return ORIGINS.filter((o) => list.includes(o));
}

/**
 * The operator and value for a choice of origins: `eq` with the one origin when the condition was
 * already `eq` and one is chosen, else `in` with the chosen list (kept in {@link ORIGINS} order;
 * an empty list is left for the API's validation to name).
 */
export function withOrigins(op: string, origins: readonly ArgumentOrigin[]): { op: string; value: unknown } {
  const chosen = ORIGINS.filter((o) => origins.includes(o));
  if (op === 'eq' && chosen.length === 1) return { op: 'eq', value: chosen[0] };
  return { op: 'in', value: chosen };
}

/** A leaf condition as the editor holds it. */
export interface LeafCondition {
  field: string;
  op: string;
  value?: unknown;
}

/**
 * The condition after its field is changed to `field`. Moving to a data-flow field from a
 * condition whose value is still empty, or from the other kind of data-flow field, starts it
 * useful: a count as `gte 1`, an argument's origin as `eq "tool"` (tainted). Otherwise only the
 * field changes (a value already typed is kept).
 */
export function withField(leaf: LeafCondition, field: string): LeafCondition {
  const next = { ...leaf, field };
  const empty = leaf.value === undefined || leaf.value === '';
  const before = fieldHelp(leaf.field)?.kind;
  const after = fieldHelp(field)?.kind;
  if (!after || before === after || (!empty && !before)) return next;
  return after === 'count' ? { field, op: 'gte', value: 1 } : { field, op: 'eq', value: 'tool' };
}
