import { newId } from '@agent-warden/contracts';
import type {
  ApprovalInboxItem,
  ApprovalStatus,
  ApprovalTransitionView,
  Approval as ApprovalView,
} from '@agent-warden/contracts';
import type { PrismaClient, Prisma } from './client';
import type { Approval as ApprovalRow, ApprovalTransition } from './generated/prisma/client';

export type { ApprovalTransition };

/** Who made a transition: `gateway` (creation), `user:<email>`, `api-key:<id>`, `system:timeout`. */
export const TIMEOUT_ACTOR = 'system:timeout';
export const GATEWAY_ACTOR = 'gateway';

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

/** The transition row of a state change, written in the same transaction as the change. */
function transitionData(
  a: Pick<ApprovalRow, 'id' | 'projectId' | 'sessionId'>,
  fromStatus: string | null,
  toStatus: string,
  actor: string,
  comment: string | null = null,
): Prisma.ApprovalTransitionUncheckedCreateInput {
  return {
    id: newId(),
    projectId: a.projectId,
    approvalId: a.id,
    sessionId: a.sessionId,
    fromStatus,
    toStatus,
    actor,
    comment,
  };
}

const isClient = (db: PrismaClient | Prisma.TransactionClient): db is PrismaClient =>
  typeof (db as { $transaction?: unknown }).$transaction === 'function';

/**
 * Creates a pending approval (docs/architecture.md#approvals) and its creation transition (`null → pending`,
 * actor `gateway`) in one transaction. Inside a caller's interactive transaction (`db` without
 * `$transaction`) both writes join it.
 */
export async function createApproval(
  db: PrismaClient | Prisma.TransactionClient,
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
    /** The request's provenance (docs/provenance.md), shown to the person deciding; omit when none. */
    provenance?: Prisma.InputJsonValue;
  },
): Promise<ApprovalRow> {
  const create = { data: { ...data, status: 'pending' } };
  const transition = { data: transitionData(data, null, 'pending', GATEWAY_ACTOR) };
  if (isClient(db)) {
    const [row] = await db.$transaction([
      db.approval.create(create),
      db.approvalTransition.create(transition),
    ]);
    return row;
  }
  const row = await db.approval.create(create);
  await db.approvalTransition.create(transition);
  return row;
}

/** One approval of a project, or null. */
export async function findApproval(
  db: PrismaClient,
  projectId: string,
  id: string,
): Promise<ApprovalRow | null> {
  return db.approval.findFirst({ where: { id, projectId } });
}

/** Applies the timeout inside a transaction; true when this call changed the row. */
async function timeoutInTx(tx: Prisma.TransactionClient, a: ApprovalRow, now: Date): Promise<boolean> {
  const status = a.onTimeout === 'approve' ? 'approved' : 'expired';
  const res = await tx.approval.updateMany({
    where: { id: a.id, status: 'pending' },
    data: { status, decidedAt: now, decidedBy: TIMEOUT_ACTOR },
  });
  if (res.count !== 1) return false;
  await tx.approvalTransition.create({ data: transitionData(a, 'pending', status, TIMEOUT_ACTOR) });
  return true;
}

/**
 * Applies the timeout outcome to a pending approval past its deadline: `expired` when the policy
 * says `deny` (the default, fail closed), `approved` by `system:timeout` when it says `approve`.
 * Only a pending row changes (an approval is decided once); the change and its transition (actor
 * `system:timeout`) commit together. Returns the current row.
 */
export async function applyTimeoutIfDue(
  db: PrismaClient,
  a: ApprovalRow,
  now = new Date(),
): Promise<ApprovalRow> {
  if (a.status !== 'pending' || a.expiresAt > now) return a;
  await db.$transaction((tx) => timeoutInTx(tx, a, now));
  return (await db.approval.findUnique({ where: { id: a.id } })) ?? a;
}

/**
 * Applies the timeout to every pending approval of the project whose deadline has passed (at most
 * `limit` a call), so that timeouts reach the inbox and the timeline even when no client is waiting.
 * Safe to run from several processes at once: each approval changes once. Returns how many changed.
 */
export async function expireDueApprovals(
  db: PrismaClient,
  projectId: string,
  now = new Date(),
  limit = 100,
): Promise<number> {
  const due = await db.approval.findMany({
    where: { projectId, status: 'pending', expiresAt: { lte: now } },
    orderBy: { expiresAt: 'asc' },
    take: limit,
  });
  let changed = 0;
  for (const a of due) if (await db.$transaction((tx) => timeoutInTx(tx, a, now))) changed++;
  return changed;
}

/**
 * Decides a pending approval once, recording the transition (with `decidedBy` as its actor and the
 * comment) in the same transaction. Returns the decided row, or `ok: false` with the current row
 * when it was already decided or its deadline had passed (the timeout is then applied), or with
 * null when the approval is not in the project.
 */
export async function decideApproval(
  db: PrismaClient,
  projectId: string,
  id: string,
  decision: {
    status: 'approved' | 'denied' | 'cancelled';
    decidedBy: string;
    comment?: string;
    /** Who acted, for the transition; defaults to `decidedBy`. */
    actor?: string;
  },
): Promise<{ ok: true; approval: ApprovalRow } | { ok: false; approval: ApprovalRow | null }> {
  const now = new Date();
  return db.$transaction(async (tx) => {
    const current = await tx.approval.findFirst({ where: { id, projectId } });
    if (!current) return { ok: false as const, approval: null };
    if (current.status === 'pending' && current.expiresAt <= now) {
      await timeoutInTx(tx, current, now);
      return { ok: false as const, approval: await tx.approval.findUniqueOrThrow({ where: { id } }) };
    }
    if (current.status !== 'pending') return { ok: false as const, approval: current };
    const res = await tx.approval.updateMany({
      where: { id, projectId, status: 'pending' },
      data: {
        status: decision.status,
        decidedBy: decision.decidedBy,
        comment: decision.comment ?? null,
        decidedAt: now,
      },
    });
    const after = await tx.approval.findUniqueOrThrow({ where: { id } });
    if (res.count !== 1) return { ok: false as const, approval: after };
    await tx.approvalTransition.create({
      data: transitionData(
        current,
        'pending',
        decision.status,
        decision.actor ?? decision.decidedBy,
        decision.comment ?? null,
      ),
    });
    return { ok: true as const, approval: after };
  });
}

/**
 * Approvals still `pending`, every project together (`warden_approvals_pending`; those past their
 * deadline count until a read applies the timeout).
 */
export async function countPendingApprovals(db: PrismaClient): Promise<number> {
  return db.approval.count({ where: { status: 'pending' } });
}

/** Keyset position of {@link listApprovals}: the sort time and id of the last item of the previous page. */
export interface ApprovalCursor {
  time: Date;
  id: string;
}

const DECIDED: ApprovalStatus[] = ['approved', 'denied', 'expired', 'cancelled'];

/**
 * Approvals of a project as the inbox shows them ({@link approvalInboxItems}): `pending` newest
 * first, `decided` by latest decision, all (no status) newest first. Keyset paging: `cursor` is
 * the position of the previous page's last item; `next` is null at the end.
 */
export async function listApprovals(
  db: PrismaClient,
  projectId: string,
  q: { status?: 'pending' | 'decided'; limit: number; cursor?: ApprovalCursor },
): Promise<{ items: ApprovalInboxItem[]; next: ApprovalCursor | null }> {
  const byDecision = q.status === 'decided';
  const key = byDecision ? 'decidedAt' : 'createdAt';
  const c = q.cursor;
  const rows = await db.approval.findMany({
    where: {
      projectId,
      ...(q.status === 'pending' ? { status: 'pending' } : {}),
      ...(byDecision ? { status: { in: DECIDED }, decidedAt: { not: null } } : {}),
      ...(c ? { OR: [{ [key]: { lt: c.time } }, { [key]: c.time, id: { lt: c.id } }] } : {}),
    },
    orderBy: [{ [key]: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: await inboxItems(db, projectId, page),
    next:
      rows.length > q.limit && last
        ? { time: (byDecision ? last.decidedAt : last.createdAt)!, id: last.id }
        : null,
  };
}

/** The inbox form of the given approvals of a project, in the order of `ids` (unknown ids are left out). */
export async function approvalInboxItems(
  db: PrismaClient,
  projectId: string,
  ids: readonly string[],
): Promise<ApprovalInboxItem[]> {
  if (ids.length === 0) return [];
  const rows = await db.approval.findMany({ where: { projectId, id: { in: [...ids] } } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return inboxItems(
    db,
    projectId,
    ids.flatMap((id) => byId.get(id) ?? []),
  );
}

async function inboxItems(
  db: PrismaClient,
  projectId: string,
  rows: ApprovalRow[],
): Promise<ApprovalInboxItem[]> {
  if (rows.length === 0) return [];
  const uniq = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => x !== null))];
  const [agents, sessions, policies] = await Promise.all([
    db.agent.findMany({ where: { projectId, id: { in: uniq(rows.map((r) => r.agentId)) } } }),
    db.session.findMany({ where: { projectId, id: { in: uniq(rows.map((r) => r.sessionId)) } } }),
    db.policy.findMany({ where: { projectId, id: { in: uniq(rows.map((r) => r.policyId)) } } }),
  ]);
  const agent = new Map(agents.map((a) => [a.id, a]));
  const session = new Map(sessions.map((s) => [s.id, s]));
  const policy = new Map(policies.map((p) => [p.id, p]));
  return rows.map((r) => {
    const a = agent.get(r.agentId);
    const s = r.sessionId ? session.get(r.sessionId) : undefined;
    const p = r.policyId ? policy.get(r.policyId) : undefined;
    return {
      ...approvalView(r),
      request: (r.request ?? {}) as Record<string, unknown>,
      provenance: (r.provenance ?? null) as ApprovalInboxItem['provenance'],
      agent: { id: r.agentId, key: a?.key ?? null, name: a?.name ?? null },
      // The session row appears when its first event is projected; until then only its id is known.
      session: s ? { id: s.id, status: s.status, startedAt: s.startedAt.toISOString() } : null,
      policy: r.policyId ? { id: r.policyId, name: p?.name ?? null } : null,
    };
  });
}

/** Wire form of a transition (contracts `ApprovalTransitionView`); `toolName` comes from its approval. */
export function approvalTransitionView(
  t: ApprovalTransition,
  toolName: string | null,
): ApprovalTransitionView {
  return {
    id: t.id,
    approvalId: t.approvalId,
    sessionId: t.sessionId,
    toolName,
    fromStatus: t.fromStatus as ApprovalStatus | null,
    toStatus: t.toStatus as ApprovalStatus,
    actor: t.actor,
    comment: t.comment,
    at: t.at.toISOString(),
  };
}

async function withToolNames(db: PrismaClient, projectId: string, rows: ApprovalTransition[]) {
  const ids = [...new Set(rows.map((t) => t.approvalId))];
  const approvals = ids.length
    ? await db.approval.findMany({
        where: { projectId, id: { in: ids } },
        select: { id: true, toolName: true },
      })
    : [];
  const tool = new Map(approvals.map((a) => [a.id, a.toolName]));
  return rows.map((t) => approvalTransitionView(t, tool.get(t.approvalId) ?? null));
}

/** Every transition of one session's approvals, or of one approval, oldest first. */
export async function approvalTransitions(
  db: PrismaClient,
  projectId: string,
  of: { sessionId: string } | { approvalId: string },
): Promise<ApprovalTransitionView[]> {
  const rows = await db.approvalTransition.findMany({
    where: { projectId, ...of },
    orderBy: [{ at: 'asc' }, { id: 'asc' }],
  });
  return withToolNames(db, projectId, rows);
}

/**
 * Transitions of a project recorded at or after `since` (the database's clock), oldest first, at
 * most `limit`. Used by the approval stream, which polls with an overlap and skips ids it has seen.
 */
export async function approvalTransitionsSince(
  db: PrismaClient,
  projectId: string,
  since: Date,
  limit = 500,
): Promise<ApprovalTransitionView[]> {
  const rows = await db.approvalTransition.findMany({
    where: { projectId, at: { gte: since } },
    orderBy: [{ at: 'asc' }, { id: 'asc' }],
    take: limit,
  });
  return withToolNames(db, projectId, rows);
}

/** The database's current time (the clock of `approval_transitions.at`). */
export async function databaseNow(db: PrismaClient): Promise<Date> {
  const [row] = await db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
  return row?.now ?? new Date();
}
