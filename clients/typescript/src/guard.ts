import {
  effectiveDecision as applyMode,
  type Approval,
  type Decision,
  type GuardDecision,
  type GuardRequestInput,
  type Mode,
  type Provenance,
} from '@agent-warden/contracts';
import { awaitApproval, type ApprovalDeps } from './approvals';
import { GuardrailBlockedError, GuardrailUnavailableError, WardenError } from './errors';
import { errorFields, type LogFields } from './logger';
import type { FailMode } from './options';
import type { EventScope } from './recorder';
import type { IdentitySource } from './registration';

/** What a guarded call describes: the fields policies match on (`agentId`, `mode` are added). */
export type GuardInput = Pick<GuardRequestInput, 'action' | 'tool' | 'resource' | 'riskLevel' | 'arguments'>;

/** How the client acted on a guard evaluation (the `outcome` of `agent.guardrail.evaluated`). */
export type GuardOutcomeKind = 'ran' | 'blocked' | 'awaiting_approval' | 'failed_open' | 'failed_closed';

/** The result of a passed guard check. */
export interface GuardCheckResult {
  /** The service's decision; absent when the service could not answer and the client failed open. */
  decision?: GuardDecision;
  /** The decision after the client's mode (what the client did). */
  effectiveDecision: Decision;
  /** `ran` or `failed_open`. */
  outcome: 'ran' | 'failed_open';
  /** The granted approval, when one was needed. */
  approval?: Approval;
}

/** One call to check. */
export interface GuardCall {
  input: GuardInput;
  /** `tool <name>` or `action <name>`, for messages and errors. */
  what: string;
  scope: EventScope;
  toolCallId?: string;
  /** Where the arguments came from (docs/provenance.md); sent and put in the evaluated event. */
  provenance?: Provenance;
}

/** What a {@link Guard} needs. */
export interface GuardDeps extends ApprovalDeps {
  api: ApprovalDeps['api'] & { evaluate(body: GuardRequestInput): Promise<GuardDecision> };
  identity: IdentitySource;
  mode: Mode;
  failMode: FailMode;
  /** Cool-down after an unreachable guard, ms (default {@link GUARD_OUTAGE_COOLDOWN_MS}). */
  outageCooldownMs?: number;
}

/**
 * After the guard service was unreachable (retries spent), guarded calls skip it and follow
 * `failMode` at once for this long, ms, instead of each waiting through the retries again.
 */
export const GUARD_OUTAGE_COOLDOWN_MS = 5000;

/**
 * Asks the service about an action and acts by mode: monitor never stops (logs "would block" /
 * "would require approval"); enforce throws on `block`, waits for a human on `require_approval`.
 * Every check emits `agent.guardrail.evaluated` with its `outcome`. When the service is
 * unreachable, checks follow `failMode` and, for {@link GUARD_OUTAGE_COOLDOWN_MS}, fail fast.
 */
export class Guard {
  private outage: { until: number; cause: unknown } | undefined;
  private readonly cooldownMs: number;

  constructor(private readonly deps: GuardDeps) {
    this.cooldownMs = deps.outageCooldownMs ?? GUARD_OUTAGE_COOLDOWN_MS;
  }

  /**
   * Evaluates `call` and returns when the action may run. Throws `GuardrailBlockedError`,
   * `ApprovalDeniedError`, `ApprovalTimeoutError`, or `GuardrailUnavailableError` (service
   * unreachable with `failMode: 'closed'`, or an approval that cannot be read).
   */
  async check(call: GuardCall): Promise<GuardCheckResult> {
    const { mode, logger } = this.deps;
    if (this.outage && Date.now() < this.outage.until) return this.unavailable(call, this.outage.cause);
    let decision: GuardDecision;
    try {
      decision = await this.evaluate(call.input, call.scope, call.toolCallId, false, call.provenance);
    } catch (e) {
      // A retryable failure (service down) opens a short cool-down: the next checks fail fast.
      if (e instanceof WardenError && e.retryable)
        this.outage = { until: Date.now() + this.cooldownMs, cause: e };
      return this.unavailable(call, e);
    }
    this.outage = undefined;
    const effective =
      mode === 'monitor' ? applyMode(decision.policyDecision, 'monitor') : decision.effectiveDecision;
    const fields = logFields(call, decision);

    if (effective === 'allow' || effective === 'warn') {
      this.record(call, decision, effective, 'ran');
      if (decision.wouldBlock && mode === 'monitor') logger.warn('warden guardrail would block', fields);
      else if (decision.wouldRequireApproval && mode === 'monitor') {
        logger.warn('warden guardrail would require approval', fields);
      } else if (effective === 'warn') logger.warn('warden guardrail warning', fields);
      return { decision, effectiveDecision: effective, outcome: 'ran' };
    }
    if (effective === 'block') {
      this.record(call, decision, effective, 'blocked');
      logger.warn('warden guardrail blocked', fields);
      throw new GuardrailBlockedError(decision, call.what);
    }
    // require_approval (enforce)
    if (!decision.approval) {
      this.record(call, decision, effective, 'failed_closed');
      logger.error('warden decision requires approval but names none', fields);
      throw new GuardrailUnavailableError(call.what, new Error('require_approval without an approval'));
    }
    this.record(call, decision, effective, 'awaiting_approval');
    const approval = await awaitApproval(this.deps, {
      decision,
      approval: decision.approval,
      what: call.what,
      toolCallId: call.toolCallId,
      scope: call.scope,
    });
    return { decision, effectiveDecision: effective, outcome: 'ran', approval };
  }

  /**
   * Dry run: evaluates without side effects (no approval, no event) and returns the full decision.
   * Throws the transport's typed errors.
   */
  dryRun(input: GuardInput, scope: EventScope, provenance?: Provenance): Promise<GuardDecision> {
    return this.evaluate(input, scope, undefined, true, provenance);
  }

  private async evaluate(
    input: GuardInput,
    scope: EventScope,
    toolCallId: string | undefined,
    dryRun: boolean,
    provenance: Provenance | undefined,
  ): Promise<GuardDecision> {
    const ids = await this.deps.identity.ensure();
    return this.deps.api.evaluate({
      ...input,
      agentId: ids.agentId,
      agentVersionId: ids.agentVersionId,
      sessionId: scope.sessionId,
      runId: scope.runId,
      toolCallId,
      mode: this.deps.mode,
      dryRun,
      provenance,
    });
  }

  private unavailable(call: GuardCall, cause: unknown): GuardCheckResult {
    const open = this.deps.failMode === 'open';
    const effective: Decision = open ? 'allow' : 'block';
    this.record(call, undefined, effective, open ? 'failed_open' : 'failed_closed');
    this.deps.logger.warn(
      open ? 'warden guardrail unavailable, failing open' : 'warden guardrail unavailable, failing closed',
      {
        what: call.what,
        toolCallId: call.toolCallId,
        ...errorFields(cause),
      },
    );
    if (!open) throw new GuardrailUnavailableError(call.what, cause);
    return { effectiveDecision: effective, outcome: 'failed_open' };
  }

  /**
   * Emits `agent.guardrail.evaluated`. Without a decision (service unreachable) the event carries no
   * `evaluationId`, no matches, and `policyDecision` equal to what the client did (`allow` when
   * failing open, `block` when failing closed), with `outcome` `failed_open` / `failed_closed`.
   */
  private record(
    call: GuardCall,
    decision: GuardDecision | undefined,
    effective: Decision,
    outcome: GuardOutcomeKind,
  ) {
    this.deps.recorder.emit(
      'agent.guardrail.evaluated',
      {
        evaluationId: decision?.evaluationId,
        toolCallId: call.toolCallId,
        toolName: call.input.tool?.name,
        mode: decision?.mode ?? this.deps.mode,
        policyDecision: decision?.policyDecision ?? effective,
        effectiveDecision: effective,
        matchedGuardrails: decision?.matchedGuardrails ?? [],
        wouldBlock: decision?.wouldBlock ?? false,
        wouldRequireApproval: decision?.wouldRequireApproval ?? false,
        approvalId: decision?.approval?.id,
        outcome,
        provenance: call.provenance,
      },
      call.scope,
    );
  }
}

function logFields(call: GuardCall, decision: GuardDecision): LogFields {
  return {
    what: call.what,
    toolCallId: call.toolCallId,
    evaluationId: decision.evaluationId,
    mode: decision.mode,
    policyDecision: decision.policyDecision,
    effectiveDecision: decision.effectiveDecision,
    guardrails: decision.matchedGuardrails.map((g) => ({
      name: g.name,
      decision: g.decision,
      reason: g.reason,
    })),
  };
}
