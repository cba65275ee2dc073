import { DECLARED } from './operators';
import type { OperandKind, Operator } from './operators/operator';

/** The name of an operator in a policy (`eq`, `in`, `startsWith`, …): its module's file name in camelCase. */
export type OperatorName = string;

/**
 * Every operator by name, collected from the modules of `src/operators/` (each typed as a complete
 * {@link Operator}: check, compile, text and cost, or it does not compile); lookups go through
 * {@link operatorOf}, never a `switch` (the pattern of OPA's `ast/builtins.go` + `topdown/*`;
 * docs/decisions.md "Operator registry").
 */
export const OPERATORS: Readonly<Record<OperatorName, Operator>> = DECLARED;

const BY_NAME = new Map<string, Operator>(Object.entries(OPERATORS));

/** The operator names in name order, e.g. for `unknown op "x"; allowed: contains, eq, …`. */
export const OPERATOR_NAMES: readonly string[] = Object.freeze([...BY_NAME.keys()]);

/** The operator called `name`, or `undefined` for an unknown name (inherited keys never match). */
export function operatorOf(name: string): Operator | undefined {
  return BY_NAME.get(name);
}

/** One operator as `GET /v1/policy-operators` lists it (contracts' `PolicyOperatorView`). */
export interface OperatorInfo {
  /** The name used in a condition's `op`. */
  name: string;
  /** The kind of value, for an editor's input (see {@link OperandKind}). */
  operand: OperandKind;
  /** False when the value may be left out (`exists`). */
  valueRequired: boolean;
  /** The value as a person reads it, e.g. `non-empty array of strings / numbers / booleans`. */
  operandText: string;
  /** Completes "matches when the field's value …". */
  summary: string;
  /** An example condition and its text as reasons show it. */
  example: { field: string; op: string; value: unknown; text: string };
}

/** Every operator with its operand and text, in registry order (for editors and docs). */
export function listOperators(): OperatorInfo[] {
  return [...BY_NAME].map(([name, op]) => {
    const { field, value } = op.example;
    return {
      name,
      operand: op.operand,
      valueRequired: op.optional !== true,
      operandText: op.operandText,
      summary: op.summary,
      example: { field, op: name, value, text: op.text(field, value) },
    };
  });
}
