import type { Approval as ApprovalView, ApprovalStatus } from '@agent-warden/contracts';
import type { PrismaClient, Prisma } from './client';
import type { Approval as ApprovalRow } from './generated/prisma/client';

/** Maps a stored approval to its wire form (contracts `Approval`). */
export function approvalView(a: ApprovalRow): ApprovalView {
  return {
    id: a.id,
    status: a.status as ApprovalStatus,
    evaluationId: a.evaluationId,
    agentId: a.agentId,
    sessionId: a.sessionId,
    toolName: a.toolName,
    createdAt: a.createdAt.toISOString(),
    expiresAt: a.expiresAt.toISOString(),
    decidedAt: a.decidedAt ? a.decidedAt.toISOString() : null,
    decidedBy: a.decidedBy,
    comment: a.comment,
    onTimeout: a.onTimeout as 'deny' | 'approve',
  };
}

/** Creates a pending approval (DESIGN.md "Approvals"). */
export async function createApproval(
  db: PrismaClient,
  data: {
    id: string;
    projectId: string;
    evaluationId: string;
    agentId: string;
    sessionId: string | null;
    toolName: string | null;
    policyId: string | null;
    onTimeout: 'deny' | 'approve';
    expiresAt: Date;
    request: Prisma.InputJsonValue;
  },
): Promise<ApprovalRow> {
  return db.approval.create({ data: { ...data, status: 'pending' } });
}

/** One approval of a project, or null. */
export async function findApproval(
  db: PrismaClient,
  projectId: string,
  id: string,
): Promise<ApprovalRow | null> {
  return db.approval.findFirst({ where: { id, projectId } });
}

/**
 * Applies the timeout outcome to a pending approval past its deadline: `expired` when the policy
 * says `deny` (the default, fail closed), `approved` by `system:timeout` when it says `approve`.
 * Only a pending row changes (an approval is decided once). Returns the current row.
 */
export async function applyTimeoutIfDue(
  db: PrismaClient,
  a: ApprovalRow,
  now = new Date(),
): Promise<ApprovalRow> {
  if (a.status !== 'pending' || a.expiresAt > now) return a;
  const status = a.onTimeout === 'approve' ? 'approved' : 'expired';
  await db.approval.updateMany({
    where: { id: a.id, status: 'pending' },
    data: { status, decidedAt: now, decidedBy: 'system:timeout' },
  });
  return (await db.approval.findUnique({ where: { id: a.id } })) ?? a;
}

/**
 * Decides a pending approval once. Returns the decided row, or `conflict` with the current row
 * when it was already decided (or expired).
 */
export async function decideApproval(
  db: PrismaClient,
  projectId: string,
  id: string,
  decision: { status: 'approved' | 'denied' | 'cancelled'; decidedBy: string; comment?: string },
): Promise<{ ok: true; approval: ApprovalRow } | { ok: false; approval: ApprovalRow | null }> {
  const current = await findApproval(db, projectId, id);
  if (!current) return { ok: false, approval: null };
  const fresh = await applyTimeoutIfDue(db, current);
  if (fresh.status !== 'pending') return { ok: false, approval: fresh };
  const res = await db.approval.updateMany({
    where: { id, projectId, status: 'pending' },
    data: {
      status: decision.status,
      decidedBy: decision.decidedBy,
      comment: decision.comment ?? null,
      decidedAt: new Date(),
    },
  });
  const after = await db.approval.findUniqueOrThrow({ where: { id } });
  return res.count === 1 ? { ok: true, approval: after } : { ok: false, approval: after };
}
