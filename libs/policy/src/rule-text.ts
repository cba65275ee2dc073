import type { MatchNode } from '@agent-warden/contracts';
import { operatorOf } from './registry';

/** What the text of a combinator needs of a child: its kind and its own text. */
interface TextPart {
  kind: 'leaf' | 'all' | 'any' | 'not';
  text: string;
}

/** The text of `not child`: `not (…)`. */
export function notText(child: string): string {
  return `not (${child})`;
}

/**
 * The text of an `all` / `any` of several children, joined by `and` / `or`; inside `a and b` an
 * `or` gets parentheses, inside `a or b` an `and` does.
 */
export function joinText(kind: 'all' | 'any', children: readonly TextPart[]): string {
  const wrap = kind === 'all' ? 'any' : 'all';
  return children
    .map((c) => (c.kind === wrap ? `(${c.text})` : c.text))
    .join(kind === 'all' ? ' and ' : ' or ');
}

function part(node: MatchNode): TextPart {
  const n = node as Record<string, unknown>;
  if ('not' in n) return { kind: 'not', text: notText(part(n.not as MatchNode).text) };
  if ('all' in n || 'any' in n) {
    const kind = 'all' in n ? 'all' : 'any';
    const children = ((n[kind] as MatchNode[] | undefined) ?? []).map(part);
    if (children.length === 1) return children[0] as TextPart;
    return { kind, text: joinText(kind, children) };
  }
  const { field, op, value } = n as { field: string; op: string; value?: unknown };
  const operator = operatorOf(op);
  return {
    kind: 'leaf',
    text: operator ? operator.text(field, value) : `${field} <unknown op ${JSON.stringify(op)}>`,
  };
}

/**
 * The whole match tree as one line, exactly as a compiled policy's `description`, e.g.
 * `tool.name = "bash" and arguments.command matches /rm\s+-rf/` (literals over 60 characters and
 * lists over 3 members cut). For the API's policy views and the editor, which need the text
 * without compiling. Expects a validated tree; never throws (an op missing from the registry
 * shows as `<unknown op "x">`).
 */
export function describeMatch(match: MatchNode): string {
  return part(match).text;
}
