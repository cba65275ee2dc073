import type { RequestHandler } from 'express';
import {
  GuardRequest,
  evaluationMessage,
  nameBasedUuidV7,
  newId,
  type ApprovalStatus,
  type GuardDecision,
  type EvaluationRecord,
} from '@agent-warden/contracts';
import { createApproval, findApproval, type PrismaClient, type Prisma } from '@agent-warden/db';
import { forbidden, parseOr400, principalOf } from '@agent-warden/http';
import type { AgentDirectory } from '../agent-directory';
import { unavailable, type EvaluationSink } from '../guard/evaluation-recorder';
import type { PolicyStore } from '../guard/policy-store';

/** Path of the guard check (DESIGN.md "Guard decision"). */
export const EVALUATE_PATH = '/v1/guardrails/evaluate';

/**
 * `POST /v1/guardrails/evaluate` (mount after the ingest-scope auth and the JSON body parser):
 * evaluates the project's policies in memory, creates a pending approval for enforce-mode
 * `require_approval` (not for dry runs), hands the evaluation record to `evaluations` (the
 * gateway's buffered recorder publishes it on `guardrail-evaluations` off the request path;
 * standalone writes it through) and answers the decision (DESIGN.md "Guard decision"). 400 with
 * the offending path for a bad body, 403 for another project's agent, 503
 * `event_log_unavailable` when the sink cannot take the record.
 */
export function evaluateHandler(deps: {
  db: PrismaClient;
  evaluations: EvaluationSink;
  agents: AgentDirectory;
  policies: PolicyStore;
  defaultApprovalTimeoutSeconds: number;
}): RequestHandler {
  return async (req, res, next) => {
    try {
      const { projectId } = principalOf(req);
      const body = parseOr400(GuardRequest, req.body);
      const agent = await deps.agents.lookup(body.agentId);
      if (!agent || agent.projectId !== projectId)
        throw forbidden('agentId is unknown or belongs to another project');

      const engine = deps.policies.engineFor(projectId);
      const input = {
        action: body.action,
        tool: body.tool,
        resource: body.resource,
        riskLevel: body.riskLevel,
        arguments: body.arguments,
      };
      const result = engine.evaluate({ ...input, agent: { key: agent.key } }, body.mode);
      // A retried request with the same Idempotency-Key gets the same evaluation (and approval) ids,
      // so the record is stored once (docs/decisions.md "Evaluate honours an Idempotency-Key").
      const key = body.dryRun ? undefined : idempotencyKey(req.get('idempotency-key'));
      const evaluationId = key ? nameBasedUuidV7(`evaluation\n${projectId}\n${key}`) : newId();
      const evaluatedAt = new Date();
      const decision: GuardDecision = {
        evaluationId,
        mode: body.mode,
        policyDecision: result.policyDecision,
        effectiveDecision: result.effectiveDecision,
        matchedGuardrails: result.matchedGuardrails,
        wouldBlock: result.wouldBlock,
        wouldRequireApproval: result.wouldRequireApproval,
        evaluatedAt: evaluatedAt.toISOString(),
      };
      if (body.mode === 'enforce' && result.policyDecision === 'require_approval' && !body.dryRun) {
        // No approval that no evaluation record would name: refuse before creating it.
        if (!deps.evaluations.hasRoom()) throw unavailable();
        const timeoutSeconds = result.approval?.timeoutSeconds ?? deps.defaultApprovalTimeoutSeconds;
        const approvalId = key ? nameBasedUuidV7(`approval\n${projectId}\n${key}`) : newId();
        const earlier = key ? await findApproval(deps.db, projectId, approvalId) : null;
        const approval =
          earlier ??
          (await createApproval(deps.db, {
            id: approvalId,
            projectId,
            evaluationId,
            agentId: body.agentId,
            sessionId: body.sessionId ?? null,
            toolName: body.tool?.name ?? body.action?.name ?? null,
            policyId: result.approval?.policyId ?? null,
            onTimeout: result.approval?.onTimeout ?? 'deny',
            expiresAt: new Date(evaluatedAt.getTime() + timeoutSeconds * 1000),
            request: JSON.parse(JSON.stringify(input)) as Prisma.InputJsonValue,
          }));
        decision.approval = {
          id: approval.id,
          status: approval.status as ApprovalStatus, // pending, unless a retry found it decided
          expiresAt: approval.expiresAt.toISOString(),
        };
      }

      const record: EvaluationRecord = {
        evaluationId,
        projectId,
        agentId: body.agentId,
        agentVersionId: body.agentVersionId ?? null,
        sessionId: body.sessionId ?? null,
        runId: body.runId ?? null,
        toolCallId: body.toolCallId ?? null,
        mode: body.mode,
        policyDecision: result.policyDecision,
        effectiveDecision: result.effectiveDecision,
        matchedGuardrails: result.matchedGuardrails,
        wouldBlock: result.wouldBlock,
        wouldRequireApproval: result.wouldRequireApproval,
        dryRun: body.dryRun,
        approvalId: decision.approval?.id ?? null,
        input,
        evaluatedAt: decision.evaluatedAt,
      };
      await deps.evaluations.record(evaluationMessage(record), Number(req.headers['content-length']) || 0);
      res.status(200).json(decision);
    } catch (err) {
      next(err);
    }
  };
}

/** Longest `Idempotency-Key` honoured, characters; a longer or empty one is ignored. */
const MAX_IDEMPOTENCY_KEY = 255;

/** The request's `Idempotency-Key` header (IETF draft-ietf-httpapi-idempotency-key-header), if usable. */
function idempotencyKey(v: string | undefined): string | undefined {
  const k = v?.trim();
  return k && k.length <= MAX_IDEMPOTENCY_KEY ? k : undefined;
}
