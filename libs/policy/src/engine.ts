import {
  DECISION_SEVERITY,
  effectiveDecision,
  type Decision,
  type MatchedGuardrail,
  type Mode,
} from '@agent-warden/contracts';
import { compileForEngine, DEFAULT_APPROVAL_TIMEOUT_SECONDS, type EnginePolicy } from './compile';
import type {
  CompiledPolicy,
  EngineApproval,
  EngineOptions,
  EngineResult,
  EvaluationInput,
  StoredPolicy,
} from './types';

/**
 * An immutable set of compiled, enabled policies. Build a new one when the set changes (with
 * `update`, which reuses the unchanged compiled policies) and swap the reference: evaluations in
 * flight keep the engine they started with.
 */
export interface Engine {
  /** Number of enabled policies the engine evaluates. */
  readonly policies: number;
  /** Decision when no policy matches. */
  readonly defaultDecision: Decision;
  /** The enabled policies, most severe first, then by name. */
  readonly compiled: readonly CompiledPolicy[];
  /**
   * Decides one guarded call (docs/architecture.md#guard-decision). Pure and synchronous; never throws for
   * an object input, whatever its contents (missing or mistyped parts just fail their conditions).
   * `mode` only changes `effectiveDecision` (monitor: `allow` stays `allow`, anything else is
   * `warn`); `wouldBlock` / `wouldRequireApproval` always describe `policyDecision`.
   */
  evaluate(input: EvaluationInput, mode: Mode): EngineResult;
  /**
   * A new engine for a changed policy set. Policies whose content (id, version, name, enabled,
   * decision, match, approval) is unchanged reuse their compiled form; options default to this
   * engine's. Throws `PolicyCompileError` like `createEngine`; this engine stays usable.
   */
  update(policies: readonly StoredPolicy[], options?: EngineOptions): Engine;
}

/** Most distinct tool names whose candidate lists an engine keeps (then it starts afresh). */
const MAX_TOOL_CACHE = 4096;

function byPrecedence(a: CompiledPolicy, b: CompiledPolicy): number {
  return (
    DECISION_SEVERITY[b.decision] - DECISION_SEVERITY[a.decision] ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function cacheKey(p: StoredPolicy): string {
  return JSON.stringify([p.id, p.version, p.name, p.enabled, p.decision, p.approval ?? null, p.match]);
}

/** Approval settings of a `require_approval` outcome from its matched policies (a non-empty prefix of `matched`). */
function approvalOf(matched: readonly CompiledPolicy[]): EngineApproval {
  let chosen = matched[0] as CompiledPolicy;
  let deny = false;
  for (let k = 0; k < matched.length; k++) {
    const p = matched[k] as CompiledPolicy;
    if (p.decision !== 'require_approval') break;
    if (p.approval.onTimeout === 'deny') deny = true;
    const better =
      p.approval.timeoutSeconds < chosen.approval.timeoutSeconds ||
      (p.approval.timeoutSeconds === chosen.approval.timeoutSeconds &&
        p.approval.onTimeout === 'deny' &&
        chosen.approval.onTimeout !== 'deny');
    if (better) chosen = p;
  }
  return {
    timeoutSeconds: chosen.approval.timeoutSeconds,
    onTimeout: deny ? 'deny' : 'approve',
    policyId: chosen.id,
  };
}

function build(
  policies: readonly StoredPolicy[],
  options: EngineOptions,
  previous: ReadonlyMap<string, EnginePolicy>,
): Engine {
  const defaultDecision: Decision = options.defaultDecision ?? 'allow';
  const indexByTool = options.indexByTool ?? true;
  const cache = new Map<string, EnginePolicy>();
  for (const p of policies) {
    if (!p.enabled) continue;
    const key = cacheKey(p);
    cache.set(key, previous.get(key) ?? compileForEngine(p));
  }
  const compiled: readonly EnginePolicy[] = Object.freeze([...cache.values()].sort(byPrecedence));

  // Tool index: the policies worth evaluating for a tool name are picked once per name (from
  // their tool.name conditions: eq, in, glob, regex, not …) and kept, so a call only runs the
  // policies that can apply to its tool. Lists keep the precedence order, so matches come out
  // sorted and the first one carries the policy decision.
  const byTool = new Map<string, readonly EnginePolicy[]>();
  const noTool = compiled.filter((p) => p.mayMatchTool(undefined));
  const candidatesFor = (tool: string): readonly EnginePolicy[] => {
    let list = byTool.get(tool);
    if (list === undefined) {
      list = compiled.filter((p) => p.mayMatchTool(tool));
      if (byTool.size >= MAX_TOOL_CACHE) byTool.clear();
      byTool.set(tool, list);
    }
    return list;
  };

  const defaultBlocks = defaultDecision === 'block';
  const defaultAsks = defaultDecision === 'require_approval';
  const defaultEffective: Record<Mode, Decision> = {
    enforce: effectiveDecision(defaultDecision, 'enforce'),
    monitor: effectiveDecision(defaultDecision, 'monitor'),
  };

  const evaluate = (input: EvaluationInput, mode: Mode): EngineResult => {
    let matched: EnginePolicy[] | undefined;
    const tool = input.tool?.name;
    if (indexByTool && (tool === undefined || typeof tool === 'string')) {
      // Candidates passed the tool filter, so their tool-only conditions hold: run the rest.
      const candidates = tool === undefined ? noTool : candidatesFor(tool);
      for (let k = 0; k < candidates.length; k++) {
        const p = candidates[k] as EnginePolicy;
        if (p.matchesForTool(input)) (matched ??= []).push(p);
      }
    } else {
      for (let k = 0; k < compiled.length; k++) {
        const p = compiled[k] as EnginePolicy;
        if (p.matches(input)) (matched ??= []).push(p);
      }
    }
    // Object literals, not spreads: spreads cost far more per call on the hot path.
    if (matched === undefined) {
      const result: EngineResult = {
        policyDecision: defaultDecision,
        effectiveDecision: defaultEffective[mode],
        matchedGuardrails: [],
        wouldBlock: defaultBlocks,
        wouldRequireApproval: defaultAsks,
      };
      if (defaultAsks)
        result.approval = { timeoutSeconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS, onTimeout: 'deny' };
      return result;
    }
    const policyDecision = (matched[0] as EnginePolicy).decision;
    const matchedGuardrails: MatchedGuardrail[] = new Array(matched.length);
    for (let k = 0; k < matched.length; k++) {
      const p = matched[k] as EnginePolicy;
      matchedGuardrails[k] = {
        policyId: p.id,
        name: p.name,
        version: p.version,
        decision: p.decision,
        reason: p.explain(input),
      };
    }
    const result: EngineResult = {
      policyDecision,
      effectiveDecision: effectiveDecision(policyDecision, mode),
      matchedGuardrails,
      wouldBlock: policyDecision === 'block',
      wouldRequireApproval: policyDecision === 'require_approval',
    };
    if (policyDecision === 'require_approval') result.approval = approvalOf(matched);
    return result;
  };

  return Object.freeze({
    policies: compiled.length,
    defaultDecision,
    compiled,
    evaluate,
    update: (next: readonly StoredPolicy[], nextOptions?: EngineOptions) =>
      build(next, nextOptions ?? { defaultDecision, indexByTool }, cache),
  });
}

/**
 * Builds an engine over the enabled policies of `policies` (disabled ones are skipped without
 * being compiled). Precedence (docs/architecture.md#guard-decision): `policyDecision` is the most severe
 * matched decision, block > require_approval > warn > allow, or `options.defaultDecision`
 * (`allow` unless set) when nothing matches; `effectiveDecision` maps it through the mode.
 * `approval` is present exactly when `policyDecision` is `require_approval`: the shortest
 * timeout among the matched `require_approval` policies (its `policyId`), with `onTimeout: 'deny'`
 * if any of them says `deny` (fail closed); when the default decision is `require_approval` and
 * nothing matched, the defaults (300 s, `deny`) without a `policyId`.
 *
 * Throws `PolicyCompileError` (naming the policy id and the issues) for an enabled policy that
 * does not validate; policies are validated on write, so this means corrupt data.
 */
export function createEngine(policies: readonly StoredPolicy[], options: EngineOptions = {}): Engine {
  return build(policies, options, new Map());
}
