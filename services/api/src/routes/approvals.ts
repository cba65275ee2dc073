import { Router, type RequestHandler } from 'express';
import { ApprovalDecisionRequest, Uuid } from '@agent-warden/contracts';
import { approvalView, decideApproval, type PrismaClient } from '@agent-warden/db';
import { AppError, notFound, parseOr400, principalOf } from '@agent-warden/http';

/**
 * Deciding approvals through the API (`admin` scope; the dashboard adds people with the approver
 * role). An approval is decided once: a second decision, or one after the deadline, is 409 with the
 * approval's current state. A waiting client's long poll sees the decision within its poll interval.
 */
export function approvalsRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const r = Router();
  r.post('/v1/approvals/:approvalId/decision', deps.auth, async (req, res) => {
    const principal = principalOf(req);
    const id = parseOr400(Uuid, req.params.approvalId, 'approvalId');
    const body = parseOr400(ApprovalDecisionRequest, req.body);
    const out = await decideApproval(deps.db, principal.projectId, id, {
      status: body.status,
      decidedBy: body.decidedBy ?? `api-key:${principal.keyId}`,
      comment: body.comment,
    });
    if (!out.ok && !out.approval) throw notFound('approval');
    if (!out.ok)
      throw new AppError('conflict', `approval is already ${out.approval!.status}`, {
        errors: [{ path: 'status', message: `already ${out.approval!.status}` }],
      });
    res.status(200).json(approvalView(out.approval));
  });
  return r;
}
