import { newId } from '@agent-warden/contracts';
import type { PrismaClient } from './client';

/** Scopes an API key may carry (docs/architecture.md#auth). */
export type KeyScope = 'ingest' | 'read' | 'admin';

/** SHA-256 hex digest helper is injected to keep libs/db free of HTTP concerns. */
export interface NewKey {
  name: string;
  prefix: string;
  hash: string;
  scopes: KeyScope[];
}

/** Creates a project. */
export async function createProject(db: PrismaClient, name: string): Promise<{ id: string; name: string }> {
  return db.project.create({ data: { id: newId(), name }, select: { id: true, name: true } });
}

/** The oldest project, if any (standalone mode runs one project by default). */
export async function firstProject(db: PrismaClient): Promise<{ id: string; name: string } | null> {
  return db.project.findFirst({ orderBy: { createdAt: 'asc' }, select: { id: true, name: true } });
}

/** Stores an API key (hash only). Idempotent on the hash: an existing key is returned unchanged. */
export async function createApiKey(
  db: PrismaClient,
  projectId: string,
  key: NewKey,
): Promise<{ id: string }> {
  const existing = await db.apiKey.findUnique({
    where: { hash: key.hash },
    select: { id: true, projectId: true },
  });
  if (existing) {
    if (existing.projectId !== projectId) throw new Error('API key already belongs to another project');
    return { id: existing.id };
  }
  return db.apiKey.create({
    data: { id: newId(), projectId, name: key.name, prefix: key.prefix, hash: key.hash, scopes: key.scopes },
    select: { id: true },
  });
}

/** Finds a non-revoked key by hash → its project and scopes; null when unknown or revoked. */
export async function findApiKeyByHash(
  db: PrismaClient,
  hash: string,
): Promise<{ projectId: string; keyId: string; scopes: KeyScope[] } | null> {
  const k = await db.apiKey.findUnique({ where: { hash } });
  if (!k || k.revokedAt) return null;
  return { projectId: k.projectId, keyId: k.id, scopes: k.scopes as KeyScope[] };
}

/**
 * {@link findApiKeyByHash} for authentication: when the key is valid, also records its use
 * (`last_used_at` = now) without waiting for the write; a failed write is ignored, the stamp is
 * informational. Authenticators call this only when their cache has no entry for the key, so
 * `lastUsedAt` is accurate to the cache lifetime (30 s by default, libs/http `KeyAuthenticator`).
 */
export async function authenticateApiKeyHash(
  db: PrismaClient,
  hash: string,
): Promise<{ projectId: string; keyId: string; scopes: KeyScope[] } | null> {
  const grant = await findApiKeyByHash(db, hash);
  if (grant)
    void db.apiKey
      .updateMany({ where: { id: grant.keyId, revokedAt: null }, data: { lastUsedAt: new Date() } })
      .catch(() => undefined);
  return grant;
}

/** Counts API keys of a project (any state). */
export async function countApiKeys(db: PrismaClient, projectId: string): Promise<number> {
  return db.apiKey.count({ where: { projectId } });
}
