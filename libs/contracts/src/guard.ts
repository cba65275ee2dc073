import { z } from 'zod';
import { ClientId, Decision, JsonObject, Mode, queryInt, RiskLevel, Timestamp, Uuid } from './common';
import { MatchedGuardrail, Resource } from './events';
import { Provenance } from './provenance';

/**
 * `POST /v1/guardrails/evaluate` body: the call an agent is about to make. Policy conditions read
 * `action.type`, `action.name`, `resource.type`, `resource.environment`, `tool.name`, `riskLevel`,
 * `agent.key` and paths into `arguments` (docs/architecture.md#guardrail-policies).
 */
export const GuardRequest = z
  .object({
    agentId: Uuid,
    agentVersionId: Uuid.optional(),
    sessionId: ClientId.optional(),
    runId: ClientId.optional(),
    toolCallId: ClientId.optional(),
    mode: Mode.default('monitor'),
    action: z
      .object({ type: z.string().max(200).optional(), name: z.string().max(200).optional() })
      .optional(),
    tool: z.object({ name: z.string().min(1).max(200) }).optional(),
    resource: Resource.optional(),
    riskLevel: RiskLevel.optional(),
    arguments: JsonObject.optional(),
    /** Where each argument leaf came from, as the client saw it (docs/provenance.md). */
    provenance: Provenance.optional(),
    /** A dry run evaluates and answers but creates no approval. */
    dryRun: z.boolean().default(false),
  })
  .meta({ id: 'GuardRequest' });
export type GuardRequest = z.infer<typeof GuardRequest>;
export type GuardRequestInput = z.input<typeof GuardRequest>;

export const ApprovalStatus = z.enum(['pending', 'approved', 'denied', 'expired', 'cancelled']);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/** Short form of an approval as embedded in a decision. */
export const ApprovalRef = z
  .object({ id: z.string(), status: ApprovalStatus, expiresAt: Timestamp })
  .meta({ id: 'ApprovalRef' });

/**
 * `POST /v1/guardrails/evaluate` response (200). `policyDecision` is the most severe matched
 * decision (or the project default); `effectiveDecision` applies the mode (docs/architecture.md#guard-decision).
 */
export const GuardDecision = z
  .object({
    evaluationId: z.string(),
    mode: Mode,
    policyDecision: Decision,
    effectiveDecision: Decision,
    matchedGuardrails: z.array(MatchedGuardrail),
    wouldBlock: z.boolean(),
    wouldRequireApproval: z.boolean(),
    approval: ApprovalRef.optional(),
    evaluatedAt: Timestamp,
  })
  .meta({ id: 'GuardDecision' });
export type GuardDecision = z.infer<typeof GuardDecision>;

/** An approval as returned by `GET /v1/approvals/{id}`. */
export const Approval = z
  .object({
    id: z.string(),
    status: ApprovalStatus,
    evaluationId: z.string(),
    agentId: z.string(),
    sessionId: z.string().nullable(),
    toolName: z.string().nullable(),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    decidedAt: Timestamp.nullable(),
    decidedBy: z.string().nullable(),
    comment: z.string().nullable(),
    onTimeout: z.enum(['deny', 'approve']),
  })
  .meta({ id: 'Approval' });
export type Approval = z.infer<typeof Approval>;

/** Query of the approval long poll: wait up to `waitSeconds` (0–60) for a decision. */
export const ApprovalWaitQuery = z.object({
  waitSeconds: queryInt(0, 60).default(0),
});

/** `POST /v1/approvals/{id}/decision` body: approve or deny a pending approval, with an optional comment. */
export const ApprovalDecisionRequest = z
  .object({
    status: z.enum(['approved', 'denied']),
    comment: z.string().max(2000).optional(),
    /**
     * On whose behalf an API key decides (e.g. the person behind a chat bot), shown as `decidedBy`;
     * defaults to `api-key:<id>`. Ignored for people: they are always `user:<email>`.
     */
    decidedBy: z.string().min(1).max(200).optional(),
  })
  .meta({ id: 'ApprovalDecisionRequest' });
