import type { Decision, MatchedGuardrail, MatchNode } from '@agent-warden/contracts';

/** One validation or compile problem: `path` is a dot path into the policy (e.g. `match.all.1.value`). */
export interface PolicyIssue {
  path: string;
  message: string;
}

/** Approval settings as stored on a policy; missing values take the defaults (300 s, `deny`). */
export interface StoredApproval {
  /** Seconds a person has to decide before the timeout outcome applies. Default 300. */
  timeoutSeconds?: number;
  /** Outcome when nobody decides in time. Default `deny` (fail closed, docs/architecture.md#approvals). */
  onTimeout?: 'deny' | 'approve';
}

/**
 * A policy as the store keeps it: the validated `PolicyInput` plus its server id and version
 * (docs/architecture.md#guardrail-policies: a change bumps the version; evaluations name the version).
 */
export interface StoredPolicy {
  id: string;
  name: string;
  /** Version number, ≥ 1; echoed in {@link MatchedGuardrail.version}. */
  version: number;
  /** Disabled policies are ignored by the engine (but can still be tried with `evaluateOne`). */
  enabled: boolean;
  decision: Decision;
  match: MatchNode;
  /** `null` (as a nullable JSON column gives it) counts as absent. */
  approval?: StoredApproval | null;
}

/**
 * What a policy sees of a guarded call. Structurally a subset of `GuardRequest` plus the agent's
 * key (which the gateway knows from the agent id). Every part is optional; a missing part simply
 * makes the conditions on it false (`exists` excepted).
 */
export interface EvaluationInput {
  action?: { type?: string; name?: string };
  tool?: { name?: string };
  resource?: { type?: string; id?: string; environment?: string };
  /** `low | medium | high | critical`; any other value never satisfies `gte` / `lte`. */
  riskLevel?: string;
  /** The tool call's arguments; read by `arguments.<path>` conditions. */
  arguments?: Record<string, unknown>;
  /**
   * Where each argument leaf came from, as the client sent it (contracts' `Provenance`,
   * docs/provenance.md); read by `provenance.*` and `session.untrustedInstructions` conditions.
   * Absent: those counts are absent too.
   */
  provenance?: EvaluationProvenance;
  agent?: { key?: string };
}

/**
 * The provenance a policy reads: structurally the contracts' `Provenance` (which is assignable to
 * it), every part optional so that stored history of any shape (backtests) never throws.
 */
export interface EvaluationProvenance {
  arguments?: readonly ArgumentProvenanceInput[];
  session?: {
    /** Tool results of the session so far that carried instructions aimed at the model. */
    untrustedInstructions?: number;
    /** The latest of them. */
    lastInstruction?: { toolName?: string; toolCallId?: string; rules?: readonly string[] };
  };
  truncated?: boolean;
}

/** The origin of one argument leaf (contracts' `ArgumentProvenance`). */
export interface ArgumentProvenanceInput {
  /** Dotted path of the leaf in the arguments (`recipient`, `recipients.0`). */
  path?: string;
  /** `user | tool | both | none`. */
  origin?: string;
  tainted?: boolean;
  instructed?: boolean;
  /** Tool results the value was found in, most recent first. */
  sources?: readonly { toolName?: string; toolCallId?: string; instructions?: boolean }[];
}

/** Resolved approval settings (defaults applied). */
export interface ApprovalSettings {
  timeoutSeconds: number;
  onTimeout: 'deny' | 'approve';
}

/**
 * A policy compiled once into plain closures (see `compilePolicy`). Immutable; safe to share
 * between engines.
 */
export interface CompiledPolicy {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly enabled: boolean;
  readonly decision: Decision;
  /** Approval settings with defaults applied (meaningful for `require_approval` policies). */
  readonly approval: ApprovalSettings;
  /** Human-readable text of the whole match tree, e.g. `tool.name = "bash" and arguments.command matches /rm/`. */
  readonly description: string;
  /**
   * `false` when no call of this tool can match, judged from the `tool.name` conditions alone
   * (`true` when the policy has none). The engine uses it to pick, once per tool name, the
   * policies worth evaluating for calls of that tool. `undefined` stands for a call without a tool.
   */
  mayMatchTool(toolName: string | undefined): boolean;
  /** True when the match tree holds for `input`. Never throws. */
  matches(input: EvaluationInput): boolean;
  /**
   * The conditions that made the tree hold for `input` (for `any`, the first branch that matched),
   * or `undefined` when it does not hold. Reasons name the rule, never the argument values
   * (arguments may hold secrets).
   */
  reason(input: EvaluationInput): string | undefined;
}

/** Options of `createEngine`. */
export interface EngineOptions {
  /** Decision when no enabled policy matches (docs/architecture.md#guard-decision: the project's default, `allow` unless set). */
  defaultDecision?: Decision;
  /**
   * Index policies by the tool names they are restricted to, so a call only evaluates the policies
   * that can apply to its tool. Default `true`; `false` evaluates every policy (for tests and the
   * benchmark — the results are identical).
   */
  indexByTool?: boolean;
}

/** Approval settings of a `require_approval` outcome, with the policy they were taken from. */
export interface EngineApproval extends ApprovalSettings {
  /** The policy whose timeout was taken; absent when the decision is the engine's default. */
  policyId?: string;
}

/** What the engine decided for one input (docs/architecture.md#guard-decision). */
export interface EngineResult {
  /** Most severe matched decision (block > require_approval > warn > allow), or the default. */
  policyDecision: Decision;
  /** `policyDecision` after the mode: enforce keeps it; monitor gives `allow` for `allow`, else `warn`. */
  effectiveDecision: Decision;
  /** Every matched enabled policy, most severe first, then by name. */
  matchedGuardrails: MatchedGuardrail[];
  wouldBlock: boolean;
  wouldRequireApproval: boolean;
  /** Present exactly when `policyDecision` is `require_approval`. */
  approval?: EngineApproval;
}
