import type { Decision, MatchNode } from '@agent-warden/contracts';
import { compilePolicy, type EvaluationInput, type StoredPolicy } from '../src';

let counter = 0;

/** A stored policy with sensible defaults; `id` defaults to a unique value. */
export function policy(match: MatchNode, over: Partial<StoredPolicy> = {}): StoredPolicy {
  counter += 1;
  return {
    id: `p${counter}`,
    name: `policy ${counter}`,
    version: 1,
    enabled: true,
    decision: 'block',
    match,
    ...over,
  };
}

/** A policy named after its decision, matching every call of `tool`. */
export function forTool(tool: string, decision: Decision, over: Partial<StoredPolicy> = {}): StoredPolicy {
  return policy(
    { field: 'tool.name', op: 'eq', value: tool },
    { name: `${decision} ${tool}`, decision, ...over },
  );
}

/** True when `match` holds for `input`. */
export function holds(match: MatchNode, input: EvaluationInput): boolean {
  return compilePolicy(policy(match)).matches(input);
}

/** The reason text of `match` for `input` (undefined when it does not hold). */
export function reasonOf(match: MatchNode, input: EvaluationInput): string | undefined {
  return compilePolicy(policy(match)).reason(input);
}

/** A leaf on `arguments.v`, for op/value tables. */
export function onArg(op: string, value?: unknown): MatchNode {
  return { field: 'arguments.v', op, value } as MatchNode;
}

/** An input whose `arguments.v` is `v`. */
export const withArg = (v: unknown): EvaluationInput => ({ arguments: { v } });

/** One row of an op table: a label, a match tree, the value of `arguments.v`, whether it holds. */
export type Case = [label: string, match: MatchNode, value: unknown, expected: boolean];

/** One test per row: `match` holds for `arguments.v = value` exactly when `expected`. */
export function table(cases: Case[]): void {
  test.each(cases)('%s', (_label, match, value, expected) => {
    expect(holds(match, withArg(value))).toBe(expected);
  });
}
