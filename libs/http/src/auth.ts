import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { forbidden, unauthenticated } from './errors';

/** API key scopes (DESIGN.md "Auth"). */
export type Scope = 'ingest' | 'read' | 'admin';

/** What a valid key grants. */
export interface Principal {
  projectId: string;
  keyId: string;
  scopes: readonly Scope[];
}

/** Looks a key up by the SHA-256 hex of its secret; null when unknown or revoked. */
export type KeyResolver = (hash: string) => Promise<Principal | null>;

/** SHA-256 hex of an API key secret. Keys are 256-bit random, so a fast hash is enough (docs/decisions.md). */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new API key `aw_<43 base64url chars>` (256 bits) and its display prefix (first 10 chars). */
export function generateApiKey(): { secret: string; prefix: string } {
  const secret = `aw_${randomBytes(32).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, 10) };
}

/** The principal set by {@link apiKeyAuth}; throws when the route was mounted without it. */
export function principalOf(req: Request): Principal {
  const p = (req as Request & { principal?: Principal }).principal;
  if (!p) throw unauthenticated('no principal on request');
  return p;
}

/**
 * Express middleware: `Authorization: Bearer <key>` → principal, or 401 (missing / unknown key)
 * and 403 (key lacks `scope`). `admin` implies every scope.
 * Successful lookups are cached for `cacheMs` (ms, default 30 000) by hash.
 */
export function apiKeyAuth(resolve: KeyResolver, scope: Scope, cacheMs = 30_000): RequestHandler {
  const cache = new Map<string, { p: Principal | null; until: number }>();
  return async (req, _res, next) => {
    try {
      const header = req.headers.authorization;
      const m = header?.match(/^Bearer\s+(\S+)\s*$/i);
      if (!m?.[1]) throw unauthenticated('missing API key: send Authorization: Bearer <key>');
      const hash = hashApiKey(m[1]);
      const now = Date.now();
      let hit = cache.get(hash);
      if (!hit || hit.until < now) {
        hit = { p: await resolve(hash), until: now + (cacheMs > 0 ? cacheMs : 0) };
        if (hit.p && cacheMs > 0) cache.set(hash, hit);
      }
      if (!hit.p) throw unauthenticated('unknown or revoked API key');
      if (!hit.p.scopes.includes(scope) && !hit.p.scopes.includes('admin'))
        throw forbidden(`API key lacks the "${scope}" scope`);
      (req as Request & { principal?: Principal }).principal = hit.p;
      next();
    } catch (err) {
      next(err);
    }
  };
}
