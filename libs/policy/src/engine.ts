import {
  DECISION_SEVERITY,
  effectiveDecision,
  type Decision,
  type MatchedGuardrail,
  type Mode,
} from '@agent-warden/contracts';
import { compilePolicy, DEFAULT_APPROVAL_TIMEOUT_SECONDS } from './compile';
import type { CompiledPolicy, EngineApproval, EngineOptions, EngineResult, EvaluationInput, StoredPolicy } from './types';

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
   * Decides one guarded call (DESIGN.md "Guard decision"). Pure and synchronous; never throws.
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
function approvalOf(matched: CompiledPolicy[]): EngineApproval {
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
  return { timeoutSeconds: chosen.approval.timeoutSeconds, onTimeout: deny ? 'deny' : 'approve', policyId: chosen.id };
}

function build(
  policies: readonly StoredPolicy[],
  options: EngineOptions,
  previous: ReadonlyMap<string, CompiledPolicy>,
): Engine {
  const defaultDecision: Decision = options.defaultDecision ?? 'allow';
  const indexByTool = options.indexByTool ?? true;
  const cache = new Map<string, CompiledPolicy>();
  for (const p of policies) {
    if (!p.enabled) continue;
    const key = cacheKey(p);
    cache.set(key, previous.get(key) ?? compilePolicy(p));
  }
  const compiled = Object.freeze([...cache.values()].sort(byPrecedence));

  // Index: a call with tool name T only evaluates the policies that can match T (those restricted
  // to a tool set holding T) plus the unrestricted ones. Lists are pre-sorted by precedence, so
  // matches come out sorted and the first one carries the policy decision.
  const unscoped = compiled.filter((p) => p.toolNames === undefined);
  const byTool = new Map<string, CompiledPolicy[]>();
  if (indexByTool) {
    for (const p of compiled) for (const t of p.toolNames ?? []) byTool.set(t, []);
    for (const [tool, list] of byTool) {
      for (const p of compiled) if (p.toolNames === undefined || p.toolNames.has(tool)) list.push(p);
    }
  }

  const noMatch: Omit<EngineResult, 'effectiveDecision' | 'matchedGuardrails'> = {
    policyDecision: defaultDecision,
    wouldBlock: defaultDecision === 'block',
    wouldRequireApproval: defaultDecision === 'require_approval',
  };
  const defaultApproval =
    defaultDecision === 'require_approval'
      ? { timeoutSeconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS, onTimeout: 'deny' as const }
      : undefined;

  const evaluate = (input: EvaluationInput, mode: Mode): EngineResult => {
    let candidates: readonly CompiledPolicy[] = compiled;
    if (indexByTool) {
      const tool = input.tool?.name;
      candidates = (typeof tool === 'string' && byTool.get(tool)) || unscoped;
    }
    let matched: CompiledPolicy[] | undefined;
    for (let k = 0; k < candidates.length; k++) {
      const p = candidates[k] as CompiledPolicy;
      if (p.matches(input)) (matched ??= []).push(p);
    }
    if (matched === undefined) {
      const result: EngineResult = { ...noMatch, effectiveDecision: effectiveDecision(defaultDecision, mode), matchedGuardrails: [] };
      if (defaultApproval) result.approval = { ...defaultApproval };
      return result;
    }
    const policyDecision = (matched[0] as CompiledPolicy).decision;
    const matchedGuardrails: MatchedGuardrail[] = matched.map((p) => ({
      policyId: p.id,
      name: p.name,
      version: p.version,
      decision: p.decision,
      reason: p.reason(input) ?? p.description,
    }));
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
 * being compiled). Precedence (DESIGN.md "Guard decision"): `policyDecision` is the most severe
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
