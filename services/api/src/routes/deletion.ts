import { Router, type RequestHandler } from 'express';
import { QUEUES, Uuid, sessionReadyKey, type DeletionResult } from '@agent-warden/contracts';
import {
  decideApproval,
  deleteAgent,
  deleteProjectTelemetry,
  deleteSession,
  pendingApprovalIdsOfAgent,
  pendingApprovalIdsOfProject,
  pendingApprovalIdsOfSessions,
  sessionIdsOfAgent,
  type PrismaClient,
} from '@agent-warden/db';
import { actorOf, notFound, parseOr400, principalOf, type Principal } from '@agent-warden/http';
import type { Logger } from '@agent-warden/observability';
import type { JobQueue } from '@agent-warden/queue';

/**
 * Deletion of telemetry (docs/decisions.md "Deleting telemetry"; docs/operations.md#retention-and-deletion),
 * admin capability (read and approve keys cannot delete):
 * - `DELETE /v1/sessions/{sessionId}`: the session and every row of it, in one transaction;
 * - `DELETE /v1/agents/{agentId}`: the agent, its versions and all their data, in one transaction;
 * - `DELETE /v1/projects/{projectId}/data`: the project's telemetry, in bounded transactions
 *   (resumable: call again after an interruption).
 * Before deleting, pending approvals are cancelled (a waiting client is told `cancelled`) and the
 * sessions' queued `session-ready` jobs are dropped. Each deletion is audited with the counts.
 * 200 {@link DeletionResult}; 404 when nothing of the session / agent is stored in the project.
 */
export function deletionRouter(deps: {
  admin: RequestHandler;
  projectAdmin: RequestHandler;
  db: PrismaClient;
  queue?: JobQueue;
  logger: Logger;
}): Router {
  const { db } = deps;
  const r = Router();

  /** Cancels the approvals (each once; one decided meanwhile is left as it is). */
  const cancel = async (p: Principal, ids: string[]): Promise<number> => {
    let n = 0;
    for (const id of ids) {
      const out = await decideApproval(db, p.projectId, id, {
        status: 'cancelled',
        decidedBy: p.actor,
        comment: 'telemetry deleted',
      });
      if (out.ok) n++;
    }
    return n;
  };

  /** Drops the sessions' pending intelligence jobs; a queue failure is logged, not fatal (the job finds no session). */
  const dropJobs = async (projectId: string, sessionIds: string[]): Promise<number> => {
    if (!deps.queue) return 0;
    let n = 0;
    try {
      for (const id of sessionIds)
        if (await deps.queue.dropPending(QUEUES.sessionReady, sessionReadyKey(projectId, id))) n++;
    } catch (err) {
      deps.logger.warn({ err, projectId }, 'cannot drop queued intelligence jobs of deleted sessions');
    }
    return n;
  };

  r.delete('/v1/sessions/:sessionId', deps.admin, async (req, res) => {
    const p = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const approvalsCancelled = await cancel(p, await pendingApprovalIdsOfSessions(db, p.projectId, [id]));
    const jobsDropped = await dropJobs(p.projectId, [id]);
    const deleted = await deleteSession(db, p.projectId, id, actorOf(p));
    if (!deleted) throw notFound('session');
    const body: DeletionResult = { deleted, approvalsCancelled, jobsDropped };
    res.json(body);
  });

  r.delete('/v1/agents/:agentId', deps.admin, async (req, res) => {
    const p = principalOf(req);
    const id = parseOr400(Uuid, req.params.agentId, 'agentId');
    const approvalsCancelled = await cancel(p, await pendingApprovalIdsOfAgent(db, p.projectId, id));
    const jobsDropped = await dropJobs(p.projectId, await sessionIdsOfAgent(db, p.projectId, id));
    const deleted = await deleteAgent(db, p.projectId, id, actorOf(p));
    if (!deleted) throw notFound('agent');
    const body: DeletionResult = { deleted, approvalsCancelled, jobsDropped };
    res.json(body);
  });

  r.delete('/v1/projects/:projectId/data', deps.projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const approvalsCancelled = await cancel(p, await pendingApprovalIdsOfProject(db, p.projectId));
    let jobsDropped = 0;
    const { deleted } = await deleteProjectTelemetry(db, p.projectId, actorOf(p), {
      onBatch: async (ids) => void (jobsDropped += await dropJobs(p.projectId, ids)),
    });
    const body: DeletionResult = { deleted, approvalsCancelled, jobsDropped };
    res.json(body);
  });
  return r;
}
