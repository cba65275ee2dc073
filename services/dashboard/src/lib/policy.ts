import type { MatchNode, PolicyInput, PolicyOperator } from '../api/types';

/**
 * Fields a condition can read (the contracts' POLICY_FIELDS) — `arguments.<path>` and
 * `provenance.arguments.<path>` are typed in. The data-flow fields (`provenance.*`,
 * `session.untrustedInstructions`) have help text in `policy-fields.ts`.
 */
export const POLICY_FIELDS = [
  'tool.name',
  'action.type',
  'action.name',
  'resource.type',
  'resource.environment',
  'riskLevel',
  'agent.key',
  'provenance.tainted',
  'provenance.instructed',
  'session.untrustedInstructions',
] as const;

type Leaf = { field: string; op: string; value?: unknown };

/** Whether a node is a leaf condition. */
export function isLeaf(n: MatchNode): n is Leaf & MatchNode {
  return 'field' in n;
}

/** A new policy as the editor starts it. */
export function newPolicy(): PolicyInput {
  return {
    name: '',
    description: '',
    enabled: true,
    decision: 'block',
    match: { all: [{ field: 'tool.name', op: 'eq', value: '' }] },
  };
}

/** The kind of value an operator takes (`undefined` while the operator list loads). */
export type Operand = PolicyOperator['operand'] | undefined;

/**
 * The text a person types for a condition's value → the value sent: JSON when it parses
 * (numbers, booleans, arrays, quoted strings), a comma list for a `list` operand (`in`), a
 * boolean for a `flag` (`exists`), else the text itself.
 */
export function parseValue(operand: Operand, text: string): unknown {
  const t = text.trim();
  if (operand === 'flag') return t !== 'false';
  try {
    return JSON.parse(t);
  } catch {
    if (operand === 'list') return t ? t.split(',').map((s) => s.trim()) : [];
    return text;
  }
}

/** A condition's value → the text shown in its input. */
export function formatValue(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}
