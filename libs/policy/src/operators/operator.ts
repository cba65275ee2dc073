import { RISK_RANK } from '@agent-warden/contracts';
import type { FieldGetter } from '../fields';
import type { EvaluationInput } from '../types';

/** A compiled leaf condition: true when the condition holds for the input. Pure, never throws. */
export type LeafTest = (input: EvaluationInput) => boolean;

/**
 * What kind of value an operator takes, so an editor can offer the right input:
 * `scalar` a string, number or boolean; `list` a non-empty array of those; `pattern` a glob or
 * regex string; `string` a non-empty string; `number` a finite number (a risk level name on
 * `riskLevel`); `flag` an optional boolean.
 */
export type OperandKind = 'scalar' | 'list' | 'pattern' | 'string' | 'number' | 'flag';

/** Where a value check reports its problems. */
export interface CheckContext {
  /** The condition's field, or `''` when the field itself is invalid (so field-specific rules are skipped). */
  readonly field: string;
  /** The operator's name, for messages such as `op "in" needs an array …`. */
  readonly op: string;
  /**
   * Records a problem at the value's dot path (`match.all.1.value`), or below it with `sub`
   * (`match.all.1.value.2` for `sub = 2`).
   */
  report(message: string, sub?: number): void;
}

/**
 * One policy operator (docs/decisions.md "Operator registry"): everything the project knows
 * about it lives in its own module under `src/operators/`, named after the operator (kebab case),
 * which `src/operators/index.ts` collects. Validation, compilation, the rule text and the API's operator
 * listing read it from there; there is no other list of operators.
 */
export interface Operator {
  /** The kind of operand, for editors (`GET /v1/policy-operators`). */
  readonly operand: OperandKind;
  /** The operand as a person reads it, e.g. `non-empty array of strings / numbers / booleans`. */
  readonly operandText: string;
  /** When the condition holds, completing "matches when the field's value …". */
  readonly summary: string;
  /** An example condition for the listing, e.g. `{ field: 'tool.name', value: 'delete_*' }` for `glob`. */
  readonly example: { readonly field: string; readonly value: unknown };
  /** True when the value may be left out (`exists`); otherwise a missing value is an error. */
  readonly optional?: true;
  /**
   * Rough relative cost of the test beyond reading the field (1 a comparison, 3 a substring or
   * glob, 8 a regex); conditions run cheapest first, which never changes a result.
   */
  readonly cost: number;
  /**
   * Checks a condition's value (`undefined` only when `optional`), reporting each problem with
   * `ctx.report`. Must accept exactly the values `compile` can handle. Never throws.
   */
  check(value: unknown, ctx: CheckContext): void;
  /**
   * Compiles a checked condition into its test, once per policy: the closure must allocate
   * nothing and never throw (it runs on the gateway's hot path). `get` reads the field.
   */
  compile(get: FieldGetter, value: unknown, field: string): LeafTest;
  /** The condition as a person reads it in a reason, e.g. `tool.name matches "delete_*"` (never argument values). */
  text(field: string, value: unknown): string;
}

/** Risk level names, lowest first (contracts' `RISK_RANK`). */
export const RISK_NAMES = Object.keys(RISK_RANK);
/** Message for a value that must be a risk level name. */
export const RISK_MESSAGE = `must be a risk level: ${RISK_NAMES.join(', ')}`;

/** True for a risk level name (`low`, `medium`, `high`, `critical`). */
export function isRiskName(v: unknown): boolean {
  return typeof v === 'string' && RISK_NAMES.includes(v);
}

/** True for a string, a boolean or a finite number: what `eq`, `in` and `contains` compare. */
export function isPrimitive(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** A value's type for messages: `null`, `an array`, `an object`, `a string`, … */
export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
