import { Router, type RequestHandler } from 'express';
import {
  ApprovalDecisionRequest,
  ApprovalListQuery,
  Uuid,
  type ApprovalStreamEvent,
} from '@agent-warden/contracts';
import {
  approvalView,
  decideApproval,
  expireDueApprovals,
  listApprovals,
  type PrismaClient,
} from '@agent-warden/db';
import { AppError, notFound, parseOr400, principalOf } from '@agent-warden/http';
import type { Logger, WardenMetrics } from '@agent-warden/observability';
import type { ApprovalFeed } from '../approval-feed';
import { decodeCursor, encodeCursor } from '../cursor';

/** Heartbeat comment interval of the stream, ms (keeps proxies from closing an idle connection). */
const HEARTBEAT_MS = 15_000;

/**
 * Approvals as people see them:
 * - `GET /v1/approvals?status=pending|decided&limit&cursor` (`read`): the inbox, with the held-back
 *   call, agent, session and policy; due timeouts are applied first.
 * - `GET /v1/approvals/stream` (`read`): server-sent events — `snapshot` (`{ items }`, the pending
 *   approvals) at connect, then `approval` (`{ transition, approval }`) for every change of the
 *   project's approvals, made by any process; a `: ping` comment every 15 s.
 * - `POST /v1/approvals/{id}/decision` (`approve`: approver or admin people, admin keys): decided
 *   once, 409 afterwards or after the deadline. People are recorded as `user:<email>`; a key as
 *   `api-key:<id>`, or the `decidedBy` it names (on whose behalf), while the transition's actor
 *   stays the key. A waiting client's long poll sees the decision within its poll interval.
 *   The time from the request to the decision is observed in `warden_approval_decision_seconds`.
 */
export function approvalsRouter(deps: {
  read: RequestHandler;
  approve: RequestHandler;
  db: PrismaClient;
  feed: ApprovalFeed;
  logger: Logger;
  /** Where a decision's time since the request is observed (`warden_approval_decision_seconds`). */
  metrics?: WardenMetrics;
}): Router {
  const { db, feed } = deps;
  const r = Router();

  r.get('/v1/approvals', deps.read, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(ApprovalListQuery, req.query, 'query');
    await expireDueApprovals(db, projectId);
    const page = await listApprovals(db, projectId, {
      status: q.status,
      limit: q.limit,
      cursor: q.cursor ? decodeCursor(q.cursor) : undefined,
    });
    res.json({
      items: page.items,
      nextCursor: page.next ? encodeCursor(page.next.time, page.next.id) : null,
    });
  });

  r.get('/v1/approvals/stream', deps.read, async (req, res) => {
    const { projectId } = principalOf(req);
    if (!feed.isOpen) throw new AppError('not_ready', 'shutting down', { retryAfterSeconds: 1 });
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // One stream per connection: ending it (client gone, server stopping) closes the socket too.
      Connection: 'close',
      'X-Accel-Buffering': 'no',
    });
    let open = true;
    const send = (event: string, data: unknown, id?: string) => {
      if (!open) return;
      res.write(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    let buffered: ApprovalStreamEvent[] | null = [];
    const unsubscribe = feed.subscribe(projectId, {
      onEvent: (e) => (buffered ? buffered.push(e) : send('approval', e, e.transition.id)),
      onClose: () => end(),
    });
    const heartbeat = setInterval(() => open && res.write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    function end() {
      if (!open) return;
      open = false;
      clearInterval(heartbeat);
      unsubscribe();
      res.end();
    }
    res.on('close', end); // the client went away (or the response ended)
    res.write('retry: 3000\n\n');
    try {
      await expireDueApprovals(db, projectId);
      const pending = await listApprovals(db, projectId, { status: 'pending', limit: 500 });
      send('snapshot', { items: pending.items });
      const queued: ApprovalStreamEvent[] = buffered ?? [];
      buffered = null;
      for (const e of queued) send('approval', e, e.transition.id);
    } catch (err) {
      // Headers are sent: no problem body now; the client reconnects after `retry`.
      deps.logger.error({ err, projectId }, 'approval stream snapshot failed');
      end();
    }
  });

  r.post('/v1/approvals/:approvalId/decision', deps.approve, async (req, res) => {
    const principal = principalOf(req);
    const id = parseOr400(Uuid, req.params.approvalId, 'approvalId');
    const body = parseOr400(ApprovalDecisionRequest, req.body);
    const onBehalfOf = principal.kind === 'api-key' ? body.decidedBy : undefined;
    const out = await decideApproval(db, principal.projectId, id, {
      status: body.status,
      decidedBy: onBehalfOf ?? principal.actor,
      actor: principal.actor,
      comment: body.comment,
    });
    if (!out.ok && !out.approval) throw notFound('approval');
    if (!out.ok)
      throw new AppError('conflict', `approval is already ${out.approval!.status}`, {
        errors: [{ path: 'status', message: `already ${out.approval!.status}` }],
      });
    res.status(200).json(approvalView(out.approval));
    const a = out.approval;
    if (a.decidedAt)
      deps.metrics?.approvals.decisionSeconds.observe(
        { status: a.status },
        Math.max(0, (a.decidedAt.getTime() - a.createdAt.getTime()) / 1000),
      );
  });
  return r;
}
