import { Router, type RequestHandler } from 'express';
import { ApprovalWaitQuery, Uuid } from '@agent-warden/contracts';
import { applyTimeoutIfDue, approvalView, findApproval, type PrismaClient } from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `GET /v1/approvals/{id}?waitSeconds=N`: answers at once when the approval is decided, else
 * re-reads it every `pollMs` (ms) until it is decided, its deadline passes (the timeout outcome is
 * applied) or `waitSeconds` have gone by, then answers its current state (docs/architecture.md#approvals).
 * Reading PostgreSQL makes a decision taken through any api or gateway process visible here.
 */
export function approvalsRouter(deps: { auth: RequestHandler; db: PrismaClient; pollMs?: number }): Router {
  const r = Router();
  const pollMs = deps.pollMs ?? 250;
  // Not an approval id (e.g. the api's `/v1/approvals/stream` in the standalone app): leave it to later routes.
  const approvalIdOnly: RequestHandler = (req, _res, next) =>
    next(Uuid.safeParse(req.params.approvalId).success ? undefined : 'route');
  r.get('/v1/approvals/:approvalId', approvalIdOnly, deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.approvalId, 'approvalId');
    const { waitSeconds } = parseOr400(ApprovalWaitQuery, req.query, 'query');
    const deadline = Date.now() + waitSeconds * 1000;
    let closed = false;
    req.on('close', () => (closed = true));
    for (;;) {
      const found = await findApproval(deps.db, projectId, id);
      if (!found) throw notFound('approval');
      const a = await applyTimeoutIfDue(deps.db, found);
      if (a.status !== 'pending' || Date.now() >= deadline || closed) {
        res.status(200).json(approvalView(a));
        return;
      }
      await sleep(
        Math.min(
          pollMs,
          Math.max(0, deadline - Date.now()),
          Math.max(0, a.expiresAt.getTime() - Date.now()) + 5,
        ),
      );
    }
  });
  return r;
}
