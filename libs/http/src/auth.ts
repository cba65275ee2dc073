import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { forbidden, unauthenticated } from './errors';

/** API key scopes (docs/architecture.md#auth). */
export type Scope = 'ingest' | 'read' | 'admin';

/** Roles of people signed in with the session cookie (docs/architecture.md#auth). */
export type Role = 'viewer' | 'approver' | 'admin';

/**
 * Who makes a request: an API key (`kind: 'api-key'`, with `keyId` and `scopes`) or a person
 * signed in with the session cookie (`kind: 'user'`, with `userId`, `email` and `role`; `scopes`
 * is empty). `actor` names them on timelines and in the audit log: `api-key:<id>` or `user:<email>`.
 */
export interface Principal {
  kind: 'api-key' | 'user';
  projectId: string;
  actor: string;
  scopes: readonly Scope[];
  keyId?: string;
  userId?: string;
  email?: string;
  role?: Role;
}

/** What a key lookup returns for a valid (not revoked) key. */
export interface KeyGrant {
  projectId: string;
  keyId: string;
  scopes: readonly Scope[];
}

/** Looks a key up by the SHA-256 hex of its secret; null when unknown or revoked. */
export type KeyResolver = (hash: string) => Promise<KeyGrant | null>;

/** SHA-256 hex of an API key secret. Keys are 256-bit random, so a fast hash is enough (docs/decisions.md). */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new API key `aw_<43 base64url chars>` (256 bits) and its display prefix (first 10 chars). */
export function generateApiKey(): { secret: string; prefix: string } {
  const secret = `aw_${randomBytes(32).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, 10) };
}

/** The principal of an API key. */
export function keyPrincipal(g: KeyGrant): Principal {
  return {
    kind: 'api-key',
    projectId: g.projectId,
    keyId: g.keyId,
    scopes: g.scopes,
    actor: `api-key:${g.keyId}`,
  };
}

/**
 * Resolves bearer secrets to principals with a cache of successful lookups (`cacheMs`, ms, default
 * 30 000) keyed by hash. {@link KeyAuthenticator.invalidate} drops a revoked key at once in this
 * process; other processes see a revocation when their cached entry ends (at most `cacheMs`).
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, { p: Principal; until: number }>();
  constructor(
    private readonly resolve: KeyResolver,
    private readonly cacheMs = 30_000,
  ) {}

  /** The key's principal, or null when the key is unknown or revoked. */
  async authenticate(secret: string): Promise<Principal | null> {
    const hash = hashApiKey(secret);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until >= now) return hit.p;
    const grant = await this.resolve(hash);
    if (!grant) {
      this.cache.delete(hash);
      return null;
    }
    const p = keyPrincipal(grant);
    if (this.cacheMs > 0) this.cache.set(hash, { p, until: now + this.cacheMs });
    return p;
  }

  /** Forgets a key (after it was revoked), so its next use is looked up again. */
  invalidate(keyId: string): void {
    for (const [hash, e] of this.cache) if (e.p.keyId === keyId) this.cache.delete(hash);
  }
}

/** The bearer token of `Authorization: Bearer <key>`, or undefined. */
export function bearerOf(req: Request): string | undefined {
  return req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

/** Sets the principal of a request (used by the auth middlewares). */
export function setPrincipal(req: Request, p: Principal): void {
  (req as Request & { principal?: Principal }).principal = p;
}

/** The principal set by {@link apiKeyAuth} or the capability guard; throws when the route was mounted without one. */
export function principalOf(req: Request): Principal {
  const p = (req as Request & { principal?: Principal }).principal;
  if (!p) throw unauthenticated('no principal on request');
  return p;
}

/**
 * Express middleware: `Authorization: Bearer <key>` → principal, or 401 (missing / unknown key)
 * and 403 (key lacks `scope`). `admin` implies every scope. Takes a resolver (with its own
 * cache of `cacheMs` ms, default 30 000) or a shared {@link KeyAuthenticator}.
 */
export function apiKeyAuth(
  keys: KeyResolver | KeyAuthenticator,
  scope: Scope,
  cacheMs = 30_000,
): RequestHandler {
  const auth = keys instanceof KeyAuthenticator ? keys : new KeyAuthenticator(keys, cacheMs);
  return async (req, _res, next) => {
    try {
      const secret = bearerOf(req);
      if (!secret) throw unauthenticated('missing API key: send Authorization: Bearer <key>');
      const p = await auth.authenticate(secret);
      if (!p) throw unauthenticated('unknown or revoked API key');
      if (!p.scopes.includes(scope) && !p.scopes.includes('admin'))
        throw forbidden(`API key lacks the "${scope}" scope`);
      setPrincipal(req, p);
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * Who acted, for audit records (`@agent-warden/db` `Actor`): `{ actor: 'api-key:<id>', keyId }` for
 * a key, `{ actor: 'user:<email>', keyId: null }` for a person.
 */
export function actorOf(p: Principal): { actor: string; keyId: string | null } {
  return { actor: p.actor, keyId: p.keyId ?? null };
}
