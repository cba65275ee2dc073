import { PolicyInput } from '@agent-warden/contracts';
import { ALLOWED_FIELDS_TEXT, isKnownField } from './fields';
import { describeType, type Operator } from './operators/operator';
import { checkProvenanceValue, PROVENANCE_OPS, provenanceFieldKind } from './provenance';
import { OPERATOR_NAMES, operatorOf } from './registry';
import type { PolicyIssue } from './types';

/** Deepest nesting of `all` / `any` / `not` a match tree may have. */
export const MAX_MATCH_DEPTH = 32;
/** Most nodes (combinators and conditions) a match tree may have. */
export const MAX_MATCH_NODES = 1000;

const CONDITION_KEYS = new Set(['field', 'op', 'value']);
const COMBINATORS = ['all', 'any', 'not'] as const;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

/** Checks the value of a condition with its operator's own check (`src/operators/`). */
function checkValue(field: string, op: string, value: unknown, path: string, issues: PolicyIssue[]): void {
  const at = join(path, 'value');
  const operator = operatorOf(op) as Operator;
  if (value === undefined && operator.optional !== true) {
    issues.push({ path: at, message: `is required for op "${op}"` });
    return;
  }
  operator.check(value, {
    field,
    op,
    report: (message, sub) => issues.push({ path: sub === undefined ? at : join(at, sub), message }),
  });
}

function checkCondition(node: Record<string, unknown>, path: string, issues: PolicyIssue[]): void {
  for (const key of Object.keys(node)) {
    if (!CONDITION_KEYS.has(key)) {
      issues.push({
        path: join(path, key),
        message: `unknown key "${key}"; a condition has field, op and value`,
      });
    }
  }
  const { field, op, value } = node;
  let fieldOk = false;
  if (typeof field !== 'string') {
    issues.push({
      path: join(path, 'field'),
      message: `is required and must be a string, got ${describeType(field)}`,
    });
  } else if (!isKnownField(field)) {
    issues.push({
      path: join(path, 'field'),
      message: `unknown field "${field}"; allowed: ${ALLOWED_FIELDS_TEXT}`,
    });
  } else {
    fieldOk = true;
  }
  if (typeof op !== 'string' || operatorOf(op) === undefined) {
    const got = typeof op === 'string' ? `"${op}"` : describeType(op);
    issues.push({
      path: join(path, 'op'),
      message: `unknown op ${got}; allowed: ${OPERATOR_NAMES.join(', ')}`,
    });
    return;
  }
  if (fieldOk && provenanceFieldKind(field as string) !== undefined) {
    checkDataFlow(field as string, op, value, path, issues);
    return;
  }
  checkValue(fieldOk ? (field as string) : '', op, value, path, issues);
}

/**
 * The rules of a data-flow field (docs/guardrails.md "Data-flow conditions"): a count takes `eq`,
 * `in`, `gte`, `lte` or `exists` with non-negative integers; `provenance.arguments.<path>` takes
 * `eq`, `in` or `exists` with the origins `user`, `tool`, `both`, `none`. An op that does not
 * apply is reported at `….op` and the value is then not checked.
 */
function checkDataFlow(field: string, op: string, value: unknown, path: string, issues: PolicyIssue[]): void {
  const kind = provenanceFieldKind(field);
  if (kind === undefined) return;
  const ops = PROVENANCE_OPS[kind];
  if (!ops.includes(op)) {
    const what = kind === 'count' ? 'a count' : 'an origin (user, tool, both or none)';
    issues.push({
      path: join(path, 'op'),
      message: `op "${op}" does not apply to ${field}, ${what}; use ${ops.join(', ')}`,
    });
    return;
  }
  const before = issues.length;
  checkValue(field, op, value, path, issues);
  if (issues.length > before) return;
  const at = join(path, 'value');
  for (const p of checkProvenanceValue(kind, op, value))
    issues.push({ path: p.sub === undefined ? at : join(at, p.sub), message: p.message });
}

/**
 * Checks a match tree's structure and semantics, appending issues with exact dot paths.
 * `path` is where the tree sits (`match` inside a policy).
 */
export function checkMatch(node: unknown, path: string, issues: PolicyIssue[]): void {
  let nodes = 0;
  let tooMany = false;
  const walk = (n: unknown, at: string, depth: number): void => {
    if (++nodes > MAX_MATCH_NODES) {
      if (!tooMany) issues.push({ path, message: `match tree has more than ${MAX_MATCH_NODES} nodes` });
      tooMany = true;
      return;
    }
    if (depth > MAX_MATCH_DEPTH) {
      issues.push({ path: at, message: `match tree is nested deeper than ${MAX_MATCH_DEPTH} levels` });
      return;
    }
    if (!isPlainObject(n)) {
      issues.push({
        path: at,
        message: `must be {all: [...]}, {any: [...]}, {not: {...}} or a condition {field, op, value}; got ${describeType(n)}`,
      });
      return;
    }
    const keys = Object.keys(n);
    const combinators = COMBINATORS.filter((k) => k in n);
    if (combinators.length > 0 && keys.length > 1) {
      issues.push({
        path: at,
        message: `a node holds exactly one of all, any or not (or is a condition); found keys ${keys.join(', ')}`,
      });
      return;
    }
    const kind = combinators[0];
    if (kind === 'not') {
      walk(n.not, join(at, 'not'), depth + 1);
    } else if (kind === 'all' || kind === 'any') {
      const children = n[kind];
      if (!Array.isArray(children)) {
        issues.push({
          path: join(at, kind),
          message: `must be an array of match nodes, got ${describeType(children)}`,
        });
      } else if (children.length === 0) {
        issues.push({ path: join(at, kind), message: 'must hold at least one match node' });
      } else {
        children.forEach((c, i) => walk(c, join(join(at, kind), i), depth + 1));
      }
    } else {
      checkCondition(n, at, issues);
    }
  };
  walk(node, path, 1);
}

/** Result of {@link validatePolicy}. */
export type PolicyValidation = { ok: true; policy: PolicyInput } | { ok: false; errors: PolicyIssue[] };

/**
 * Validates a policy body (`PolicyInput` of `@agent-warden/contracts`) and its match tree's
 * semantics, for the policy API and the dashboard's editor.
 *
 * Errors carry the dot path of the offending part and a message, ready for a problem+json
 * `errors` list (docs/architecture.md#errors), e.g. `{ path: 'match.all.1.value', message: 'Invalid regular
 * expression: /(/: Unterminated group' }`. Checked beyond the schema:
 * - fields: the fixed fields or `arguments.<path>`; the message lists the allowed ones;
 * - ops: a name of the operator registry (`src/operators/index.ts`); the value is required unless
 *   the operator says it is optional, and checked by the operator's own `check` (e.g. `in` a
 *   non-empty array; `regex` compiles, is at most `MAX_REGEX_LENGTH` characters and has no
 *   nested unbounded quantifier such as `(a+)+`; on `riskLevel`, risk level names);
 * - `all` / `any` are non-empty; a node is exactly one kind;
 * - the tree is at most {@link MAX_MATCH_DEPTH} deep and {@link MAX_MATCH_NODES} nodes big.
 *
 * On success `policy` is the schema's output (defaults applied: `enabled: true`, approval
 * `timeoutSeconds: 300`, `onTimeout: 'deny'`). Never throws.
 */
export function validatePolicy(input: unknown): PolicyValidation {
  const issues: PolicyIssue[] = [];
  if (!isPlainObject(input))
    return { ok: false, errors: [{ path: '', message: `must be an object, got ${describeType(input)}` }] };
  if (input.match !== undefined) checkMatch(input.match, 'match', issues);
  const parsed = PolicyInput.safeParse(input);
  if (!parsed.success) {
    const matchChecked = input.match !== undefined;
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String).join('.');
      // The match tree's own walk gives exact paths; zod's union errors inside it would only
      // repeat them less precisely. Keep zod's if the walk found nothing (it should not happen).
      const inMatch = issue.path[0] === 'match' && matchChecked;
      if (inMatch && issues.some((i) => i.path === 'match' || i.path.startsWith('match.'))) continue;
      issues.push({ path, message: issue.message });
    }
  }
  if (issues.length > 0 || !parsed.success) {
    return { ok: false, errors: issues.length > 0 ? issues : [{ path: '', message: 'invalid policy' }] };
  }
  return { ok: true, policy: parsed.data };
}
