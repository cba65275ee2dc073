import { newId } from '@agent-warden/contracts';
import { Prisma, type PrismaClient } from './client';
import type { AuditLog } from './generated/prisma/client';

export type { AuditLog };

/** Who makes a change: `actor` is `api-key:<id>` (later `user:<email>`); `keyId` the API key's id. */
export interface Actor {
  actor: string;
  keyId: string | null;
}

/** The actor of an API key. */
export function apiKeyActor(keyId: string): Actor {
  return { actor: `api-key:${keyId}`, keyId };
}

/** One change to record: `before` / `after` are JSON snapshots of the entity (null when it did not exist / no longer does). */
export interface AuditEntry {
  action: string;
  entityType: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
}

/** A Prisma client or an interactive transaction. */
export type DbOrTx = PrismaClient | Prisma.TransactionClient;

/** A value as a nullable JSON column wants it (dates become ISO strings; null/undefined → SQL NULL). */
export function jsonColumn(v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  if (v === undefined || v === null) return Prisma.DbNull;
  return JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;
}

/**
 * Writes audit records of one change, in the caller's transaction so that a change and its record
 * commit together. `at` is the transaction's `now()`.
 */
export async function recordAudit(
  db: DbOrTx,
  projectId: string,
  actor: Actor,
  entries: readonly AuditEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.auditLog.createMany({
    data: entries.map((e) => ({
      id: newId(),
      projectId,
      actor: actor.actor,
      actorKeyId: actor.keyId,
      action: e.action,
      entityType: e.entityType,
      entityId: e.entityId,
      before: jsonColumn(e.before),
      after: jsonColumn(e.after),
    })),
  });
}

/** Filters and keyset position of {@link listAudit}. */
export interface AuditFilter {
  entityType?: string;
  entityId?: string;
  action?: string;
  limit: number;
  /** Position of the last record of the previous page. */
  after?: { at: Date; id: string };
}

/** Audit records of a project, newest first; `limit + 1` rows so the caller can tell whether more follow. */
export async function listAudit(db: PrismaClient, projectId: string, f: AuditFilter): Promise<AuditLog[]> {
  return db.auditLog.findMany({
    where: {
      projectId,
      ...(f.entityType ? { entityType: f.entityType } : {}),
      ...(f.entityId ? { entityId: f.entityId } : {}),
      ...(f.action ? { action: f.action } : {}),
      ...(f.after ? { OR: [{ at: { lt: f.after.at } }, { at: f.after.at, id: { lt: f.after.id } }] } : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: f.limit + 1,
  });
}
