import type { PrismaClient } from './client';
import type { ApiKey } from './generated/prisma/client';
import type { KeyScope } from './projects';

export type { ApiKey };

/**
 * API-key management of a project. Secrets are made and hashed by the caller (`generateApiKey` /
 * `hashApiKey` of `@agent-warden/http`) and stored with `createApiKey`; this module lists and
 * revokes. `findApiKeyByHash` (projects.ts) is the lookup that authentication uses.
 */

/** The project's keys, newest first, revoked ones included. */
export async function listApiKeys(db: PrismaClient, projectId: string): Promise<ApiKey[]> {
  return db.apiKey.findMany({ where: { projectId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/** One key of a project, or null. */
export async function findApiKey(db: PrismaClient, projectId: string, id: string): Promise<ApiKey | null> {
  return db.apiKey.findFirst({ where: { id, projectId } });
}

/**
 * Revokes a key of the project: sets `revokedAt` once (revoking again keeps the first time).
 * Lookups by hash return null from then on. Returns the key, or null when it is not in the project.
 */
export async function revokeApiKey(db: PrismaClient, projectId: string, id: string): Promise<ApiKey | null> {
  await db.apiKey.updateMany({ where: { id, projectId, revokedAt: null }, data: { revokedAt: new Date() } });
  return findApiKey(db, projectId, id);
}

/** Wire form of a key (contracts `ApiKeyView`): never the hash or the secret. */
export function apiKeyView(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes as KeyScope[],
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  };
}

/** Ids of every API key of a project, revoked ones included. */
export async function apiKeyIdsOf(db: PrismaClient, projectId: string): Promise<string[]> {
  const rows = await db.apiKey.findMany({ where: { projectId }, select: { id: true } });
  return rows.map((r) => r.id);
}
