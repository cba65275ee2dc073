import type { Decision } from './common';
import type { MatchedGuardrail } from './events';
import type { GuardDecision, GuardRequest } from './guard';
import type { Provenance } from './provenance';
import type { EvaluationRecord } from './topics';

/**
 * One builder for a guardrail evaluation, shared by the gateway (the decision it answers and the
 * record it publishes on `guardrail-evaluations`) and the projector (the `guardrail_evaluations`
 * row it writes), so the three carry the same fields from one place (docs/decisions.md "One
 * builder for the evaluation record").
 */

/** What policies see of a guarded call, as evaluated and as recorded (`EvaluationRecord.input`). */
export type GuardInput = EvaluationRecord['input'];

/** The policy-relevant part of a guard request: action, tool, resource, risk level and arguments. */
export function guardInput(request: GuardRequest): GuardInput {
  return {
    action: request.action,
    tool: request.tool,
    resource: request.resource,
    riskLevel: request.riskLevel,
    arguments: request.arguments,
  };
}

/** The tool a guarded call names (an approval's and an evaluation row's `toolName`): the tool, else the action, else null. */
export function guardedToolName(input: GuardInput): string | null {
  return input.tool?.name ?? input.action?.name ?? null;
}

/** What the policy engine decided, as the decision, the record and the row carry it. */
export interface EvaluationOutcome {
  policyDecision: Decision;
  effectiveDecision: Decision;
  matchedGuardrails: MatchedGuardrail[];
  wouldBlock: boolean;
  wouldRequireApproval: boolean;
}

/**
 * The record of one evaluation (`data` of a `guardrail-evaluations` record; see
 * `evaluationMessage`). `request` gives the ids, mode and dry-run flag (absent ids → null);
 * `evaluatedAt` is ISO 8601; `approvalId` names the pending approval an enforce-mode
 * `require_approval` created, else null. Only the outcome's own fields are copied (an engine
 * result may carry more).
 */
export function evaluationRecord(a: {
  evaluationId: string;
  projectId: string;
  request: GuardRequest;
  input: GuardInput;
  outcome: EvaluationOutcome;
  approvalId: string | null;
  evaluatedAt: string;
}): EvaluationRecord {
  const { request, outcome } = a;
  return {
    evaluationId: a.evaluationId,
    projectId: a.projectId,
    agentId: request.agentId,
    agentVersionId: request.agentVersionId ?? null,
    sessionId: request.sessionId ?? null,
    runId: request.runId ?? null,
    toolCallId: request.toolCallId ?? null,
    mode: request.mode,
    policyDecision: outcome.policyDecision,
    effectiveDecision: outcome.effectiveDecision,
    matchedGuardrails: outcome.matchedGuardrails,
    wouldBlock: outcome.wouldBlock,
    wouldRequireApproval: outcome.wouldRequireApproval,
    dryRun: request.dryRun,
    approvalId: a.approvalId,
    input: a.input,
    provenance: request.provenance ?? null,
    evaluatedAt: a.evaluatedAt,
  };
}

/** The guard check's answer for a record, with the pending approval when one was created. */
export function guardDecision(record: EvaluationRecord, approval?: GuardDecision['approval']): GuardDecision {
  return {
    evaluationId: record.evaluationId,
    mode: record.mode,
    policyDecision: record.policyDecision,
    effectiveDecision: record.effectiveDecision,
    matchedGuardrails: record.matchedGuardrails,
    wouldBlock: record.wouldBlock,
    wouldRequireApproval: record.wouldRequireApproval,
    evaluatedAt: record.evaluatedAt,
    ...(approval ? { approval } : {}),
  };
}

/**
 * A `guardrail_evaluations` row (column names as in the Prisma model `GuardrailEvaluation`): the
 * record's fields, with `id` = `evaluationId`, `evaluatedAt` as a Date and the guarded tool's name
 * ({@link guardedToolName} of the input) as its own column. `provenance` is left out when the
 * record has none, so the column stays SQL NULL (Prisma takes no plain `null` for a JSON column).
 */
export type EvaluationRow = Omit<EvaluationRecord, 'evaluationId' | 'evaluatedAt' | 'provenance'> & {
  id: string;
  toolName: string | null;
  provenance?: Provenance;
  evaluatedAt: Date;
};

/** The row the projector stores for a record. */
export function evaluationRow(record: EvaluationRecord): EvaluationRow {
  const { evaluationId, evaluatedAt, provenance, ...fields } = record;
  return {
    ...fields,
    id: evaluationId,
    toolName: guardedToolName(record.input),
    ...(provenance ? { provenance } : {}),
    evaluatedAt: new Date(evaluatedAt),
  };
}
