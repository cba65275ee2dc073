import { DECISION_SEVERITY, RISK_RANK, type MatchedGuardrail } from '@agent-warden/contracts';
import { showList, showRegex, showValue } from './describe';
import { compileField } from './fields';
import { compileGlob } from './glob';
import type { CompiledPolicy, EvaluationInput, PolicyIssue, StoredPolicy } from './types';
import { checkMatch } from './validate';

/** Default approval timeout of a `require_approval` policy, in seconds (contracts' `PolicyApproval`). */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300;

/** Thrown by `compilePolicy` / `createEngine` when a stored policy does not validate. */
export class PolicyCompileError extends Error {
  readonly code = 'invalid_policy';
  constructor(
    readonly policyId: string,
    readonly issues: PolicyIssue[],
  ) {
    super(`policy ${policyId} does not compile: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'PolicyCompileError';
  }
}

type Test = (input: EvaluationInput) => boolean;

/** A compiled match node: a test, an explanation of why it held, and its static text. */
interface Node {
  kind: 'leaf' | 'all' | 'any' | 'not';
  test: Test;
  /** Only called when `test` holds for the same input. */
  explain: (input: EvaluationInput) => string;
  text: string;
  /** Tool names the node can hold for (see `CompiledPolicy.toolNames`); `undefined` = any. */
  tools: Set<string> | undefined;
}

type Leaf = { field: string; op: string; value?: unknown };

const RISK = new Map<unknown, number>(Object.entries(RISK_RANK));

function leafTest(c: Leaf): Test {
  const get = compileField(c.field);
  const v = c.value;
  switch (c.op) {
    case 'eq':
      return (i) => get(i) === v;
    case 'in': {
      const set = new Set(v as unknown[]);
      return (i) => set.has(get(i));
    }
    case 'glob': {
      const g = compileGlob(v as string);
      return (i) => {
        const x = get(i);
        return typeof x === 'string' && g.test(x);
      };
    }
    case 'regex': {
      const re = new RegExp(v as string);
      return (i) => {
        const x = get(i);
        return typeof x === 'string' && re.test(x);
      };
    }
    case 'contains':
      if (typeof v === 'string') {
        return (i) => {
          const x = get(i);
          return typeof x === 'string' ? x.includes(v) : Array.isArray(x) && x.includes(v);
        };
      }
      return (i) => {
        const x = get(i);
        return Array.isArray(x) && x.includes(v);
      };
    case 'gte':
    case 'lte': {
      const up = c.op === 'gte';
      if (c.field === 'riskLevel') {
        const bound = RISK.get(v) as number;
        return up
          ? (i) => {
              const r = RISK.get(get(i));
              return r !== undefined && r >= bound;
            }
          : (i) => {
              const r = RISK.get(get(i));
              return r !== undefined && r <= bound;
            };
      }
      const bound = v as number;
      return up
        ? (i) => {
            const x = get(i);
            return typeof x === 'number' && x >= bound;
          }
        : (i) => {
            const x = get(i);
            return typeof x === 'number' && x <= bound;
          };
    }
    case 'exists':
      return v === false
        ? (i) => {
            const x = get(i);
            return x === undefined || x === null;
          }
        : (i) => {
            const x = get(i);
            return x !== undefined && x !== null;
          };
    default:
      throw new Error(`unknown op "${c.op}"`);
  }
}

function leafText(c: Leaf): string {
  switch (c.op) {
    case 'eq':
      return `${c.field} = ${showValue(c.value)}`;
    case 'in':
      return `${c.field} in ${showList(c.value as unknown[])}`;
    case 'glob':
      return `${c.field} matches ${showValue(c.value)}`;
    case 'regex':
      return `${c.field} matches ${showRegex(c.value as string)}`;
    case 'contains':
      return `${c.field} contains ${showValue(c.value)}`;
    case 'gte':
      return `${c.field} >= ${showValue(c.value)}`;
    case 'lte':
      return `${c.field} <= ${showValue(c.value)}`;
    default:
      return c.value === false ? `${c.field} does not exist` : `${c.field} exists`;
  }
}

function leafTools(c: Leaf): Set<string> | undefined {
  if (c.field !== 'tool.name') return undefined;
  // Only string values make a tool-name index key; anything else stays unscoped (evaluated always).
  if (c.op === 'eq') return typeof c.value === 'string' ? new Set([c.value]) : undefined;
  if (c.op === 'in') {
    const values = c.value as unknown[];
    return values.every((x) => typeof x === 'string') ? new Set(values as string[]) : undefined;
  }
  if (c.op === 'glob') {
    const literal = compileGlob(c.value as string).literal;
    return literal === undefined ? undefined : new Set([literal]);
  }
  return undefined;
}

function conjunction(tests: Test[]): Test {
  if (tests.length === 1) return tests[0] as Test;
  if (tests.length === 2) {
    const [a, b] = tests as [Test, Test];
    return (i) => a(i) && b(i);
  }
  if (tests.length === 3) {
    const [a, b, c] = tests as [Test, Test, Test];
    return (i) => a(i) && b(i) && c(i);
  }
  return (i) => {
    for (let k = 0; k < tests.length; k++) if (!(tests[k] as Test)(i)) return false;
    return true;
  };
}

function disjunction(tests: Test[]): Test {
  if (tests.length === 1) return tests[0] as Test;
  if (tests.length === 2) {
    const [a, b] = tests as [Test, Test];
    return (i) => a(i) || b(i);
  }
  return (i) => {
    for (let k = 0; k < tests.length; k++) if ((tests[k] as Test)(i)) return true;
    return false;
  };
}

function compileNode(node: unknown): Node {
  const n = node as Record<string, unknown>;
  if ('not' in n) {
    const child = compileNode(n.not);
    const test = child.test;
    const text = `not (${child.text})`;
    return { kind: 'not', test: (i) => !test(i), explain: () => text, text, tools: undefined };
  }
  if ('all' in n || 'any' in n) {
    const isAll = 'all' in n;
    const children = ((isAll ? n.all : n.any) as unknown[]).map(compileNode);
    if (children.length === 1) return children[0] as Node;
    const kind = isAll ? 'all' : 'any';
    // Inside `a and b`, an `or` needs parentheses; inside `a or b`, an `and` does.
    const wrap = isAll ? 'any' : 'all';
    const text = children.map((c) => (c.kind === wrap ? `(${c.text})` : c.text)).join(isAll ? ' and ' : ' or ');
    const tests = children.map((c) => c.test);
    if (isAll) {
      const constrained = children.map((c) => c.tools).filter((t): t is Set<string> => t !== undefined);
      let tools: Set<string> | undefined;
      for (const t of constrained) tools = tools === undefined ? new Set(t) : new Set([...tools].filter((x) => t.has(x)));
      return {
        kind,
        test: conjunction(tests),
        // Every child held; an `any` child names its own matching branch, so no parentheses.
        explain: (i) => children.map((c) => c.explain(i)).join(' and '),
        text,
        tools,
      };
    }
    const tools = children.every((c) => c.tools !== undefined)
      ? new Set(children.flatMap((c) => [...(c.tools as Set<string>)]))
      : undefined;
    return {
      kind,
      test: disjunction(tests),
      explain: (i) => {
        for (const c of children) if (c.test(i)) return c.explain(i);
        return text;
      },
      text,
      tools,
    };
  }
  const leaf = n as Leaf;
  const text = leafText(leaf);
  return { kind: 'leaf', test: leafTest(leaf), explain: () => text, text, tools: leafTools(leaf) };
}

/**
 * Compiles a stored policy once into plain closures: fields into getters, regexes and globs into
 * RegExps (or string fast paths), `in` lists into Sets, `all` / `any` / `not` into short-circuit
 * functions. The result's `matches(input)` allocates nothing and never throws; `reason(input)`
 * names the conditions that matched (for `any`, the first branch that held; for `not`, the negated
 * subtree), e.g. `tool.name = "bash" and arguments.command matches /rm\s+-rf\s+\//`.
 *
 * Approval settings get their defaults (timeout {@link DEFAULT_APPROVAL_TIMEOUT_SECONDS} s,
 * `onTimeout: 'deny'`). The match tree is validated as by `validatePolicy`; throws
 * {@link PolicyCompileError} (with the issues' paths under `match`) when it does not validate, or
 * when `decision` is not a decision.
 */
export function compilePolicy(policy: StoredPolicy): CompiledPolicy {
  const issues: PolicyIssue[] = [];
  checkMatch(policy.match, 'match', issues);
  if (!Object.hasOwn(DECISION_SEVERITY, policy.decision)) {
    issues.push({ path: 'decision', message: `unknown decision "${String(policy.decision)}"` });
  }
  if (issues.length > 0) throw new PolicyCompileError(policy.id, issues);
  const root = compileNode(policy.match);
  const test = root.test;
  return Object.freeze({
    id: policy.id,
    name: policy.name,
    version: policy.version,
    enabled: policy.enabled,
    decision: policy.decision,
    approval: Object.freeze({
      timeoutSeconds: policy.approval?.timeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      onTimeout: policy.approval?.onTimeout ?? 'deny',
    }),
    description: root.text,
    toolNames: root.tools,
    matches: test,
    reason: (input: EvaluationInput) => (test(input) ? root.explain(input) : undefined),
  });
}

/**
 * Evaluates one compiled policy against one input, whether it is enabled or not: for dry runs of
 * a draft and for backtests over stored history. Returns the matched guardrail (as it would appear
 * in a decision's `matchedGuardrails`), or `undefined` when the policy does not match.
 */
export function evaluateOne(compiled: CompiledPolicy, input: EvaluationInput): MatchedGuardrail | undefined {
  const reason = compiled.reason(input);
  if (reason === undefined) return undefined;
  return { policyId: compiled.id, name: compiled.name, version: compiled.version, decision: compiled.decision, reason };
}
