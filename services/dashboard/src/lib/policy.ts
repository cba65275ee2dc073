import type { MatchNode, PolicyInput } from '../api/types';

/** Fields a condition can read (the contracts' POLICY_FIELDS) — `arguments.<path>` is typed in. */
export const POLICY_FIELDS = [
  'tool.name',
  'action.type',
  'action.name',
  'resource.type',
  'resource.environment',
  'riskLevel',
  'agent.key',
] as const;

export const OPS = ['eq', 'in', 'glob', 'regex', 'gte', 'lte', 'exists', 'contains'] as const;

type Leaf = { field: string; op: string; value?: unknown };

/** Whether a node is a leaf condition. */
export function isLeaf(n: MatchNode): n is Leaf & MatchNode {
  return 'field' in n;
}

/** The rule as one line, e.g. `tool.name = "bash" and arguments.command matches /rm/`. */
export function describeMatch(n: MatchNode): string {
  if ('all' in n) return n.all.map((c) => wrap(c)).join(' and ');
  if ('any' in n) return n.any.map((c) => wrap(c)).join(' or ');
  if ('not' in n) return `not ${wrap(n.not)}`;
  const v = JSON.stringify(n.value);
  switch (n.op) {
    case 'eq':
      return `${n.field} = ${v}`;
    case 'in':
      return `${n.field} in ${v}`;
    case 'glob':
      return `${n.field} like ${v}`;
    case 'regex':
      return `${n.field} matches /${String(n.value)}/`;
    case 'gte':
      return `${n.field} ≥ ${v}`;
    case 'lte':
      return `${n.field} ≤ ${v}`;
    case 'exists':
      return n.value === false ? `${n.field} is missing` : `${n.field} exists`;
    case 'contains':
      return `${n.field} contains ${v}`;
    default:
      return `${n.field} ${n.op} ${v}`;
  }
}

function wrap(n: MatchNode): string {
  return isLeaf(n) ? describeMatch(n) : `(${describeMatch(n)})`;
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

/**
 * The text a person types for a condition's value → the value sent: JSON when it parses
 * (numbers, booleans, arrays, quoted strings), a comma list for `in`, else the text itself.
 */
export function parseValue(op: string, text: string): unknown {
  const t = text.trim();
  if (op === 'exists') return t !== 'false';
  try {
    return JSON.parse(t);
  } catch {
    if (op === 'in') return t ? t.split(',').map((s) => s.trim()) : [];
    return text;
  }
}

/** A condition's value → the text shown in its input. */
export function formatValue(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}
