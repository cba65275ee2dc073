import type {
  AuditEntryView,
  Decision,
  MatchNode,
  PolicyVersionView,
  PolicyView,
} from '@agent-warden/contracts';
import type { PrismaClient } from './client';
import type { AuditLog, Policy, PolicyVersion } from './generated/prisma/client';

/** Reads of a project's policies, their versions and the wire forms (contracts `policy-api.ts`). */

type ApprovalView = PolicyView['approval'];

function approvalOf(v: unknown): ApprovalView {
  if (!v || typeof v !== 'object') return null;
  const a = v as { timeoutSeconds?: unknown; onTimeout?: unknown };
  return {
    timeoutSeconds: typeof a.timeoutSeconds === 'number' ? a.timeoutSeconds : 300,
    onTimeout: a.onTimeout === 'approve' ? 'approve' : 'deny',
  };
}

/** Stored policy → wire form. */
export function policyView(p: Policy): PolicyView {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    enabled: p.enabled,
    decision: p.decision as Decision,
    match: p.match as MatchNode,
    approval: approvalOf(p.approval),
    version: p.version,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    deletedAt: p.deletedAt?.toISOString() ?? null,
  };
}

/** Stored version → wire form. */
export function policyVersionView(v: PolicyVersion): PolicyVersionView {
  return {
    policyId: v.policyId,
    version: v.version,
    name: v.name,
    description: v.description,
    enabled: v.enabled,
    decision: v.decision as Decision,
    match: v.match as MatchNode,
    approval: approvalOf(v.approval),
    createdAt: v.createdAt.toISOString(),
    createdBy: v.createdBy,
  };
}

/** Stored audit record → wire form. */
export function auditView(a: AuditLog): AuditEntryView {
  return {
    id: a.id,
    at: a.at.toISOString(),
    actor: a.actor,
    actorKeyId: a.actorKeyId,
    action: a.action,
    entityType: a.entityType,
    entityId: a.entityId,
    before: a.before ?? null,
    after: a.after ?? null,
  };
}

/** A policy as an importable body (`PolicyInput`: no id, version or timestamps). */
export function policyAsInput(p: Policy): Record<string, unknown> {
  return {
    name: p.name,
    ...(p.description !== null ? { description: p.description } : {}),
    enabled: p.enabled,
    decision: p.decision,
    match: p.match,
    ...(p.approval ? { approval: p.approval } : {}),
  };
}

/** One policy of the project, deleted ones included; null when unknown. */
export async function findPolicy(db: PrismaClient, projectId: string, id: string): Promise<Policy | null> {
  return db.policy.findFirst({ where: { id, projectId } });
}

/** Filters and keyset position of {@link listPolicies}. */
export interface PolicyFilter {
  enabled?: boolean;
  decision?: Decision;
  /** Case-insensitive substring of the name. */
  nameContains?: string;
  includeDeleted?: boolean;
  limit: number;
  /** Last `(name, id)` of the previous page. */
  after?: { name: string; id: string };
}

/** Policies of a project ordered by (name, id); `limit + 1` rows so the caller can tell whether more follow. */
export async function listPolicies(db: PrismaClient, projectId: string, f: PolicyFilter): Promise<Policy[]> {
  return db.policy.findMany({
    where: {
      projectId,
      ...(f.includeDeleted ? {} : { deletedAt: null }),
      ...(f.enabled !== undefined ? { enabled: f.enabled } : {}),
      ...(f.decision ? { decision: f.decision } : {}),
      ...(f.nameContains ? { name: { contains: f.nameContains, mode: 'insensitive' as const } } : {}),
      ...(f.after
        ? { OR: [{ name: { gt: f.after.name } }, { name: f.after.name, id: { gt: f.after.id } }] }
        : {}),
    },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    take: f.limit + 1,
  });
}

/** Versions of a policy of the project, newest first, below version `before` when given; `limit + 1` rows. */
export async function listPolicyVersions(
  db: PrismaClient,
  projectId: string,
  policyId: string,
  o: { limit: number; before?: number },
): Promise<PolicyVersion[]> {
  return db.policyVersion.findMany({
    where: { projectId, policyId, ...(o.before !== undefined ? { version: { lt: o.before } } : {}) },
    orderBy: { version: 'desc' },
    take: o.limit + 1,
  });
}

/** One version of a policy of the project; null when unknown. */
export async function findPolicyVersion(
  db: PrismaClient,
  projectId: string,
  policyId: string,
  version: number,
): Promise<PolicyVersion | null> {
  return db.policyVersion.findFirst({ where: { projectId, policyId, version } });
}

/** Live policies of a project by name (all, or only enabled ones) and its default decision, for an export. */
export async function exportPolicies(
  db: PrismaClient,
  projectId: string,
  includeDisabled: boolean,
): Promise<{ defaultDecision: Decision; policies: Policy[] }> {
  const [project, policies] = await Promise.all([
    db.project.findUniqueOrThrow({ where: { id: projectId }, select: { defaultDecision: true } }),
    db.policy.findMany({
      where: { projectId, deletedAt: null, ...(includeDisabled ? {} : { enabled: true }) },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    }),
  ]);
  return { defaultDecision: project.defaultDecision as Decision, policies };
}
