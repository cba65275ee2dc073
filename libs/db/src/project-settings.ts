import type { Decision } from '@agent-warden/contracts';
import type { Prisma, PrismaClient } from './client';
import { recordAudit, type Actor } from './audit';
import { withProjectLock } from './policy-tx';

/** Settings of a project that the guardrails use. */
export interface ProjectSettingsRecord {
  /** Decision when no enabled policy matches (docs/architecture.md#guard-decision; `allow` unless set). */
  defaultDecision: Decision;
}

/** A project's settings; throws when the project does not exist (a key always names one). */
export async function getProjectSettings(
  db: PrismaClient,
  projectId: string,
): Promise<ProjectSettingsRecord> {
  const p = await db.project.findUniqueOrThrow({
    where: { id: projectId },
    select: { defaultDecision: true },
  });
  return { defaultDecision: p.defaultDecision as Decision };
}

/**
 * Sets the default decision inside the caller's transaction and audits it
 * (`project.settings.updated`, entity `project`). No write and no record when it is unchanged.
 */
export async function applyDefaultDecision(
  tx: Prisma.TransactionClient,
  projectId: string,
  actor: Actor,
  decision: Decision,
): Promise<{ defaultDecision: Decision; changed: boolean }> {
  const before = await tx.project.findUniqueOrThrow({
    where: { id: projectId },
    select: { defaultDecision: true },
  });
  if (before.defaultDecision === decision) return { defaultDecision: decision, changed: false };
  await tx.project.update({ where: { id: projectId }, data: { defaultDecision: decision } });
  await recordAudit(tx, projectId, actor, [
    {
      action: 'project.settings.updated',
      entityType: 'project',
      entityId: projectId,
      before: { defaultDecision: before.defaultDecision },
      after: { defaultDecision: decision },
    },
  ]);
  return { defaultDecision: decision, changed: true };
}

/** Sets the project's default decision (serialised with its policy writes); gateways pick it up within a second. */
export async function setDefaultDecision(
  db: PrismaClient,
  projectId: string,
  actor: Actor,
  decision: Decision,
): Promise<{ defaultDecision: Decision; changed: boolean }> {
  return withProjectLock(db, projectId, (tx) => applyDefaultDecision(tx, projectId, actor, decision));
}
