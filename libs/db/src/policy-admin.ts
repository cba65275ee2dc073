import { newId, type PolicyInput } from '@agent-warden/contracts';
import type { Prisma, PrismaClient } from './client';
import type { Policy, PolicyVersion } from './generated/prisma/client';
import { jsonColumn, recordAudit, type Actor, type AuditEntry } from './audit';
import { withProjectLock } from './policy-tx';

export type { Policy, PolicyVersion };

/**
 * Writes to a project's policies (docs/architecture.md#guardrail-policies). Every write runs in one
 * transaction under the project's advisory lock, bumps the policy's `version` (except a delete),
 * keeps the new version in `policy_versions` and writes an `audit_log` record. Inputs are
 * validated policies (`validatePolicy` of `@agent-warden/policy`). Names are unique per project
 * among policies not deleted, compared case-insensitively.
 */

/** Stable codes of the errors below. */
export type PolicyAdminErrorCode = 'policy_not_found' | 'policy_name_conflict' | 'policy_version_conflict';

/** Base of the typed errors of policy writes. */
export class PolicyAdminError extends Error {
  constructor(
    readonly code: PolicyAdminErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The policy does not exist in the project, or is deleted (writes only touch live policies). */
export class PolicyNotFoundError extends PolicyAdminError {
  constructor(readonly policyId: string) {
    super('policy_not_found', `policy ${policyId} not found`);
  }
}

/** Names already used by live policies of the project; `index` is the position in an import. */
export class PolicyNameConflictError extends PolicyAdminError {
  constructor(readonly conflicts: ReadonlyArray<{ name: string; policyId: string; index?: number }>) {
    super('policy_name_conflict', `policy name already in use: ${conflicts.map((c) => c.name).join(', ')}`);
  }
}

/** A conditional update named a version that is no longer the current one. */
export class PolicyVersionConflictError extends PolicyAdminError {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super('policy_version_conflict', `expected version ${expected}, the policy is at version ${actual}`);
  }
}

/** Who writes, for which project. */
export interface PolicyWriteContext {
  projectId: string;
  actor: Actor;
}

/** JSON snapshot of a policy as audit records hold it. */
export function policySnapshot(p: Policy): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    enabled: p.enabled,
    decision: p.decision,
    match: p.match,
    approval: p.approval,
    version: p.version,
    deletedAt: p.deletedAt?.toISOString() ?? null,
  };
}

function content(input: PolicyInput) {
  return {
    name: input.name,
    description: input.description ?? null,
    enabled: input.enabled,
    decision: input.decision,
    match: input.match as Prisma.InputJsonValue,
    approval: jsonColumn(input.approval),
  };
}

function versionData(p: Policy, actor: Actor): Prisma.PolicyVersionCreateManyInput {
  return {
    id: newId(),
    projectId: p.projectId,
    policyId: p.id,
    version: p.version,
    name: p.name,
    description: p.description,
    enabled: p.enabled,
    decision: p.decision,
    match: p.match as Prisma.InputJsonValue,
    approval: jsonColumn(p.approval),
    createdBy: actor.actor,
  };
}

/** JSON with sorted keys, to compare stored JSON (jsonb reorders keys) with an input. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/** True when `input` would store exactly what `p` holds. */
function sameContent(p: Policy, input: PolicyInput): boolean {
  const c = content(input);
  const approval = input.approval ?? null;
  return (
    canonical([p.name, p.description, p.enabled, p.decision, p.match, p.approval]) ===
    canonical([c.name, c.description, c.enabled, c.decision, c.match, approval])
  );
}

async function live(tx: Prisma.TransactionClient, projectId: string, id: string): Promise<Policy> {
  const p = await tx.policy.findFirst({ where: { id, projectId, deletedAt: null } });
  if (!p) throw new PolicyNotFoundError(id);
  return p;
}

async function assertNameFree(
  tx: Prisma.TransactionClient,
  projectId: string,
  name: string,
  exceptId?: string,
) {
  const other = await tx.policy.findFirst({
    where: {
      projectId,
      deletedAt: null,
      name: { equals: name, mode: 'insensitive' },
      ...(exceptId ? { id: { not: exceptId } } : {}),
    },
    select: { id: true, name: true },
  });
  if (other) throw new PolicyNameConflictError([{ name: other.name, policyId: other.id }]);
}

/** Stores the new state `next` of a policy (already written): its version row and the audit record. */
async function recordChange(
  tx: Prisma.TransactionClient,
  ctx: PolicyWriteContext,
  action: string,
  before: Policy | null,
  next: Policy,
  newVersion = true,
): Promise<void> {
  if (newVersion) await tx.policyVersion.create({ data: versionData(next, ctx.actor) });
  await recordAudit(tx, ctx.projectId, ctx.actor, [
    {
      action,
      entityType: 'policy',
      entityId: next.id,
      before: before ? policySnapshot(before) : null,
      after: policySnapshot(next),
    },
  ]);
}

/** Creates a policy at version 1. Throws {@link PolicyNameConflictError}. */
export async function createPolicy(
  db: PrismaClient,
  ctx: PolicyWriteContext,
  input: PolicyInput,
): Promise<Policy> {
  return withProjectLock(db, ctx.projectId, async (tx) => {
    await assertNameFree(tx, ctx.projectId, input.name);
    const p = await tx.policy.create({
      data: { id: newId(), projectId: ctx.projectId, ...content(input), version: 1 },
    });
    await recordChange(tx, ctx, 'policy.created', null, p);
    return p;
  });
}

/**
 * Replaces a live policy's content: always a new version. `expectedVersion` makes it conditional.
 * Throws {@link PolicyNotFoundError}, {@link PolicyNameConflictError}, {@link PolicyVersionConflictError}.
 */
export async function replacePolicy(
  db: PrismaClient,
  ctx: PolicyWriteContext,
  id: string,
  input: PolicyInput,
  expectedVersion?: number,
): Promise<Policy> {
  return withProjectLock(db, ctx.projectId, async (tx) => {
    const cur = await live(tx, ctx.projectId, id);
    if (expectedVersion !== undefined && expectedVersion !== cur.version)
      throw new PolicyVersionConflictError(expectedVersion, cur.version);
    await assertNameFree(tx, ctx.projectId, input.name, id);
    const next = await tx.policy.update({
      where: { id },
      data: { ...content(input), version: cur.version + 1 },
    });
    await recordChange(tx, ctx, 'policy.updated', cur, next);
    return next;
  });
}

/**
 * Enables or disables a live policy: a new version (so evaluations name it), unless it is already
 * in that state (`changed: false`, nothing written). Throws {@link PolicyNotFoundError}.
 */
export async function setPolicyEnabled(
  db: PrismaClient,
  ctx: PolicyWriteContext,
  id: string,
  enabled: boolean,
): Promise<{ policy: Policy; changed: boolean }> {
  return withProjectLock(db, ctx.projectId, async (tx) => {
    const cur = await live(tx, ctx.projectId, id);
    if (cur.enabled === enabled) return { policy: cur, changed: false };
    const next = await tx.policy.update({ where: { id }, data: { enabled, version: cur.version + 1 } });
    await recordChange(tx, ctx, enabled ? 'policy.enabled' : 'policy.disabled', cur, next);
    return { policy: next, changed: true };
  });
}

/**
 * Soft-deletes a live policy (`deleted_at`): gateways drop it, its versions stay readable, its
 * name becomes free. The version is not bumped. Throws {@link PolicyNotFoundError}.
 */
export async function deletePolicy(db: PrismaClient, ctx: PolicyWriteContext, id: string): Promise<Policy> {
  return withProjectLock(db, ctx.projectId, async (tx) => {
    const cur = await live(tx, ctx.projectId, id);
    const next = await tx.policy.update({ where: { id }, data: { deletedAt: new Date() } });
    await recordChange(tx, ctx, 'policy.deleted', cur, next, false);
    return next;
  });
}

/** What an import does with a name that a live policy already has. */
export type ImportConflictMode = 'fail' | 'update' | 'skip';

/** Outcome of {@link importPolicies}, per input in order. */
export interface ImportOutcome {
  policies: Array<{ policy: Policy; result: 'created' | 'updated' | 'unchanged' | 'skipped' }>;
}

/**
 * Imports validated policies with distinct names, all or nothing, in one transaction. A name a live
 * policy has: `fail` → {@link PolicyNameConflictError} listing every such input (nothing written);
 * `update` → a new version when the content differs (else `unchanged`); `skip` → left as is.
 * Writes one audit record per created/updated policy and a `policies.imported` summary.
 */
export async function importPolicies(
  db: PrismaClient,
  ctx: PolicyWriteContext,
  inputs: readonly PolicyInput[],
  onConflict: ImportConflictMode,
  extra?: (tx: Prisma.TransactionClient) => Promise<void>,
): Promise<ImportOutcome> {
  return withProjectLock(
    db,
    ctx.projectId,
    async (tx) => {
      const existing = await tx.policy.findMany({ where: { projectId: ctx.projectId, deletedAt: null } });
      const byName = new Map(existing.map((p) => [p.name.toLowerCase(), p]));
      const conflicts = inputs.flatMap((input, index) => {
        const cur = byName.get(input.name.toLowerCase());
        return cur ? [{ name: input.name, policyId: cur.id, index }] : [];
      });
      if (onConflict === 'fail' && conflicts.length > 0) throw new PolicyNameConflictError(conflicts);

      const out: ImportOutcome['policies'] = [];
      const fresh: Prisma.PolicyCreateManyInput[] = [];
      const audits: AuditEntry[] = [];
      for (const input of inputs) {
        const cur = byName.get(input.name.toLowerCase());
        if (!cur) {
          fresh.push({ id: newId(), projectId: ctx.projectId, ...content(input), version: 1 });
          continue;
        }
        if (onConflict === 'skip' || sameContent(cur, input)) {
          out.push({ policy: cur, result: onConflict === 'skip' ? 'skipped' : 'unchanged' });
          continue;
        }
        const next = await tx.policy.update({
          where: { id: cur.id },
          data: { ...content(input), version: cur.version + 1 },
        });
        await tx.policyVersion.create({ data: versionData(next, ctx.actor) });
        audits.push({
          action: 'policy.updated',
          entityType: 'policy',
          entityId: next.id,
          before: policySnapshot(cur),
          after: policySnapshot(next),
        });
        out.push({ policy: next, result: 'updated' });
      }
      const created = fresh.length > 0 ? await tx.policy.createManyAndReturn({ data: fresh }) : [];
      if (created.length > 0)
        await tx.policyVersion.createMany({ data: created.map((p) => versionData(p, ctx.actor)) });
      for (const p of created) {
        audits.push({
          action: 'policy.created',
          entityType: 'policy',
          entityId: p.id,
          after: policySnapshot(p),
        });
        out.push({ policy: p, result: 'created' });
      }
      const count = (r: string) => out.filter((o) => o.result === r).length;
      audits.push({
        action: 'policies.imported',
        entityType: 'project',
        entityId: ctx.projectId,
        after: {
          onConflict,
          created: count('created'),
          updated: count('updated'),
          unchanged: count('unchanged'),
          skipped: count('skipped'),
        },
      });
      await recordAudit(tx, ctx.projectId, ctx.actor, audits);
      await extra?.(tx);
      // Answer in the order of the input.
      const order = new Map(inputs.map((p, i) => [p.name.toLowerCase(), i]));
      out.sort((a, b) => order.get(a.policy.name.toLowerCase())! - order.get(b.policy.name.toLowerCase())!);
      return { policies: out };
    },
    60_000,
  );
}
