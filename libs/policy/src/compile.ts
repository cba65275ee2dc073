import { DECISION_SEVERITY, type MatchedGuardrail } from '@agent-warden/contracts';
import { compileField } from './fields';
import type { Operator } from './operators/operator';
import { provenanceFacts } from './provenance';
import { operatorOf } from './registry';
import { joinText, notText } from './rule-text';
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

/** A leaf condition as stored (validated before compiling). */
type Leaf = { field: string; op: string; value?: unknown };
type Test = (input: EvaluationInput) => boolean;
type ToolTest = (toolName: unknown) => boolean;
/** What a reason says about the data flow the node read (docs/guardrails.md "Data-flow conditions"). */
type Facts = (input: EvaluationInput) => string[];

/** A compiled match node. */
interface Node {
  kind: 'leaf' | 'all' | 'any' | 'not';
  test: Test;
  /** Why the node held; only called when `test` holds for the same input. */
  explain: (input: EvaluationInput) => string;
  /** Static text of the whole subtree. */
  text: string;
  /** `explain` always gives `text` (no `any` with several branches below, outside a `not`). */
  fixed: boolean;
  /**
   * What the tool name alone says: `false` means the node cannot hold for a call of that tool
   * (an over-approximation of `test`); `undefined` when the node has no tool condition.
   */
  tool: ToolTest | undefined;
  /** The node's truth depends on `tool.name` only (so `tool` is exact and may be negated). */
  toolOnly: boolean;
  /** Rough relative cost of `test`, to run cheap conditions first. */
  cost: number;
  /** Children of an `all` / `any` (for the engine's residual test). */
  children?: Node[];
  /**
   * The data-flow facts behind the node, for its reason (paths and tools, never values);
   * undefined when the subtree reads no provenance field. Only called when the policy matched
   * (a `not` passes its child's facts on, so a leaf's facts never depend on its own test).
   */
  facts: Facts | undefined;
}

/** Tests ordered cheapest first; order does not change the result (tests are pure). */
function byCost(nodes: Node[]): Test[] {
  return [...nodes].sort((a, b) => a.cost - b.cost).map((c) => c.test);
}

/** Rough relative cost of reading a field: 1 for a fixed field, more for a longer argument path. */
function fieldCost(field: string): number {
  if (field.startsWith('arguments.')) return 1 + field.split('.').length;
  // Data-flow fields: one memoised summary of the provenance, then a map lookup.
  return field.startsWith('provenance.') || field.startsWith('session.') ? 2 : 1;
}

/** The registry's operator of a checked leaf; throws for an unknown one (never silently a default). */
function operatorFor(leaf: Leaf): Operator {
  const op = operatorOf(leaf.op);
  if (op === undefined) throw new Error(`unknown op "${leaf.op}"`);
  return op;
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
    const text = notText(child.text);
    const childTool = child.tool as ToolTest;
    return {
      kind: 'not',
      test: (i) => !test(i),
      explain: () => text,
      text,
      fixed: true,
      tool: child.toolOnly ? (name) => !childTool(name) : undefined,
      toolOnly: child.toolOnly,
      cost: child.cost,
      // A negated data-flow condition still says where the value came from.
      facts: child.facts,
    };
  }
  if ('all' in n || 'any' in n) {
    const isAll = 'all' in n;
    const children = ((isAll ? n.all : n.any) as unknown[]).map(compileNode);
    if (children.length === 1) return children[0] as Node;
    const kind = isAll ? 'all' : 'any';
    const text = joinText(kind, children);
    const tests = byCost(children);
    const toolOnly = children.every((c) => c.toolOnly);
    const cost = children.reduce((sum, c) => sum + c.cost, 0);
    if (isAll) {
      const toolTests = children.map((c) => c.tool).filter((t): t is ToolTest => t !== undefined);
      const fixed = children.every((c) => c.fixed);
      return {
        kind,
        test: conjunction(tests),
        // Every child held; an `any` child names its own matching branch, so no parentheses.
        explain: fixed ? () => text : (i) => children.map((c) => c.explain(i)).join(' and '),
        text,
        fixed,
        tool: toolTests.length === 0 ? undefined : (name) => toolTests.every((t) => t(name)),
        toolOnly,
        cost,
        children,
        facts: allFacts(children),
      };
    }
    const toolTests = children.map((c) => c.tool);
    return {
      kind,
      test: disjunction(tests),
      explain: (i) => {
        for (const c of children) if (c.test(i)) return c.explain(i);
        return text;
      },
      text,
      fixed: false,
      tool: toolTests.every((t) => t !== undefined)
        ? (name) => toolTests.some((t) => (t as ToolTest)(name))
        : undefined,
      toolOnly,
      cost,
      children,
      facts: children.some((c) => c.facts !== undefined)
        ? (i) => {
            for (const c of children) if (c.test(i)) return c.facts?.(i) ?? [];
            return [];
          }
        : undefined,
    };
  }
  const leaf = n as Leaf;
  const op = operatorFor(leaf);
  const text = op.text(leaf.field, leaf.value);
  // The operator's own closure, unwrapped: the hot path calls it directly.
  const test = op.compile(compileField(leaf.field), leaf.value, leaf.field);
  const onTool = leaf.field === 'tool.name';
  return {
    kind: 'leaf',
    test,
    explain: () => text,
    text,
    fixed: true,
    tool: onTool ? (name) => test({ tool: { name } } as EvaluationInput) : undefined,
    toolOnly: onTool,
    cost: fieldCost(leaf.field) + op.cost,
    facts: provenanceFacts(leaf.field),
  };
}

/** The facts of an `all` (every child held): its children's, in order; undefined when none reads provenance. */
function allFacts(children: readonly Node[]): Facts | undefined {
  const list = children.map((c) => c.facts).filter((f): f is Facts => f !== undefined);
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return (i) => list.flatMap((f) => f(i));
}

/**
 * The reason of a policy whose tree reads provenance: the rule's reason, then each distinct fact,
 * e.g. `tool.name = "send_money" and provenance.tainted >= 1; arguments.recipient came from the
 * output of read_file (call 0193…), not from the user's request`.
 */
function withFacts(explain: (i: EvaluationInput) => string, facts: Facts | undefined) {
  if (facts === undefined) return explain;
  return (i: EvaluationInput): string => {
    const base = explain(i);
    const said = [...new Set(facts(i))];
    return said.length === 0 ? base : `${base}; ${said.join('; ')}`;
  };
}

/** A compiled policy plus what the engine needs beyond the public shape. */
export interface EnginePolicy extends CompiledPolicy {
  /** The reason for an input that `matches` (unspecified otherwise); skips re-testing. */
  readonly explain: (input: EvaluationInput) => string;
  /**
   * `matches` for an input whose tool name passed `mayMatchTool`: the conditions that depend on
   * the tool name alone (exactly decided by that filter) are left out.
   */
  readonly matchesForTool: Test;
}

/** The root's test without the `tool.name`-only conditions that `mayMatchTool` already decided. */
function residual(root: Node): Test {
  if (root.toolOnly) return () => true;
  if (root.kind !== 'all' || root.children === undefined) return root.test;
  const rest = root.children.filter((c) => !c.toolOnly);
  return rest.length === root.children.length ? root.test : conjunction(byCost(rest));
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
  return compileForEngine(policy);
}

/** `compilePolicy` with the engine's extra method. */
export function compileForEngine(policy: StoredPolicy): EnginePolicy {
  const issues: PolicyIssue[] = [];
  checkMatch(policy.match, 'match', issues);
  if (!Object.hasOwn(DECISION_SEVERITY, policy.decision)) {
    issues.push({ path: 'decision', message: `unknown decision "${String(policy.decision)}"` });
  }
  if (issues.length > 0) throw new PolicyCompileError(policy.id, issues);
  const root = compileNode(policy.match);
  const test = root.test;
  const text = root.text;
  const explain = withFacts(root.fixed ? () => text : root.explain, root.facts);
  const tool = root.tool;
  const timeout = policy.approval?.timeoutSeconds;
  return Object.freeze({
    id: policy.id,
    name: policy.name,
    version: policy.version,
    enabled: policy.enabled,
    decision: policy.decision,
    approval: Object.freeze({
      timeoutSeconds:
        typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout)
          ? timeout
          : DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      // Anything but an explicit `approve` fails closed.
      onTimeout: policy.approval?.onTimeout === 'approve' ? ('approve' as const) : ('deny' as const),
    }),
    description: text,
    mayMatchTool: tool === undefined ? () => true : (toolName: string | undefined) => tool(toolName),
    matches: test,
    reason: (input: EvaluationInput) => (test(input) ? explain(input) : undefined),
    explain,
    matchesForTool: residual(root),
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
  return {
    policyId: compiled.id,
    name: compiled.name,
    version: compiled.version,
    decision: compiled.decision,
    reason,
  };
}
