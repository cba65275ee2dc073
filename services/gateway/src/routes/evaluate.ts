import type { RequestHandler } from 'express';
import {
  GuardRequest,
  evaluationMessage,
  evaluationRecord,
  guardDecision,
  guardInput,
  guardedToolName,
  nameBasedUuidV7,
  newId,
  type ApprovalStatus,
  type GuardDecision,
} from '@agent-warden/contracts';
import { createApproval, findApproval, type PrismaClient, type Prisma } from '@agent-warden/db';
import { AppError, parseOr400, principalOf, validationError } from '@agent-warden/http';
import type { WardenMetrics } from '@agent-warden/observability';
import type { AgentDirectory } from '../agent-directory';
import { unavailable, type EvaluationSink } from '../guard/evaluation-recorder';
import type { PolicyStore } from '../guard/policy-store';

/** Path of the guard check (docs/architecture.md#guard-decision). */
export const EVALUATE_PATH = '/v1/guardrails/evaluate';

/**
 * `POST /v1/guardrails/evaluate` (mount after the ingest-scope auth and the JSON body parser):
 * evaluates the project's policies in memory, creates a pending approval for enforce-mode
 * `require_approval` (not for dry runs), hands the evaluation record to `evaluations` (the
 * gateway's buffered recorder publishes it on `guardrail-evaluations` off the request path;
 * standalone writes it through) and answers the decision (docs/architecture.md#guard-decision). 400 with
 * the offending path for a bad body, 403 naming `agentId` / `agentVersionId` for another project's
 * agent or version (session and run ids are the client's, scoped by project: docs/decisions.md
 * "Ids are owned by a project"), 503
 * `event_log_unavailable` when the sink cannot take the record. Counts each answered decision in
 * `metrics` (`warden_guard_decisions_total`, `warden_guard_evaluation_duration_seconds`).
 */
export function evaluateHandler(deps: {
  db: PrismaClient;
  evaluations: EvaluationSink;
  agents: AgentDirectory;
  policies: PolicyStore;
  defaultApprovalTimeoutSeconds: number;
  metrics: WardenMetrics;
}): RequestHandler {
  const { decisions, evaluationDuration } = deps.metrics.guard;
  return async (req, res, next) => {
    const started = performance.now();
    try {
      const { projectId } = principalOf(req);
      const body = parseOr400(GuardRequest, req.body);
      const agent = await deps.agents.lookup(body.agentId);
      if (!agent || agent.projectId !== projectId)
        throw new AppError('forbidden', 'agentId is unknown or belongs to another project', {
          errors: [{ path: 'agentId', message: 'not an agent of this API key’s project' }],
        });
      if (
        body.agentVersionId &&
        !(await deps.agents.ownsVersion(projectId, body.agentId, body.agentVersionId))
      )
        throw new AppError('forbidden', 'agentVersionId is unknown or not a version of this agent', {
          errors: [{ path: 'agentVersionId', message: 'not a version of agentId in this API key’s project' }],
        });

      const engine = deps.policies.engineFor(projectId);
      const input = guardInput(body);
      // Data-flow conditions read the provenance; it is recorded beside the input, not in it.
      const result = engine.evaluate(
        { ...input, provenance: body.provenance, agent: { key: agent.key } },
        body.mode,
      );
      // A retried request with the same Idempotency-Key gets the same evaluation (and approval) ids,
      // so the record is stored once (docs/decisions.md "Evaluate honours an Idempotency-Key").
      const key = body.dryRun ? undefined : idempotencyKey(req.get('idempotency-key'));
      const evaluationId = key ? nameBasedUuidV7(`evaluation\n${projectId}\n${key}`) : newId();
      const evaluatedAt = new Date();
      let approvalRef: GuardDecision['approval'];
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
            toolName: guardedToolName(input),
            policyId: result.approval?.policyId ?? null,
            onTimeout: result.approval?.onTimeout ?? 'deny',
            expiresAt: new Date(evaluatedAt.getTime() + timeoutSeconds * 1000),
            request: JSON.parse(JSON.stringify(input)) as Prisma.InputJsonValue,
            ...(body.provenance
              ? { provenance: JSON.parse(JSON.stringify(body.provenance)) as Prisma.InputJsonValue }
              : {}),
          }));
        approvalRef = {
          id: approval.id,
          status: approval.status as ApprovalStatus, // pending, unless a retry found it decided
          expiresAt: approval.expiresAt.toISOString(),
        };
      }

      const record = evaluationRecord({
        evaluationId,
        projectId,
        request: body,
        input,
        outcome: result,
        approvalId: approvalRef?.id ?? null,
        evaluatedAt: evaluatedAt.toISOString(),
      });
      await deps.evaluations.record(evaluationMessage(record), Number(req.headers['content-length']) || 0);
      res.status(200).json(guardDecision(record, approvalRef));
      decisions.inc({
        effective_decision: record.effectiveDecision,
        policy_decision: record.policyDecision,
        mode: body.mode,
      });
      evaluationDuration.observe({ mode: body.mode }, (performance.now() - started) / 1000);
    } catch (err) {
      next(err);
    }
  };
}

/** Longest `Idempotency-Key`, characters (as the OpenAPI document says); an empty one is ignored. */
const MAX_IDEMPOTENCY_KEY = 255;

/**
 * The request's `Idempotency-Key` header (IETF draft-ietf-httpapi-idempotency-key-header), trimmed;
 * undefined when absent or empty.
 * @throws AppError `validation_failed` (400) naming `headers.idempotency-key` when it is longer than
 *   {@link MAX_IDEMPOTENCY_KEY} characters
 */
function idempotencyKey(v: string | undefined): string | undefined {
  const k = v?.trim();
  if (k && k.length > MAX_IDEMPOTENCY_KEY)
    throw validationError('Idempotency-Key is too long', [
      { path: 'headers.idempotency-key', message: `at most ${MAX_IDEMPOTENCY_KEY} characters` },
    ]);
  return k || undefined;
}
