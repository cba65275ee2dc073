import type { Request, RequestHandler } from 'express';
import { bearerOf, setPrincipal, type KeyAuthenticator, type Principal, type Role } from './auth';
import { forbidden, unauthenticated } from './errors';
import type { SessionTokens } from './session';

/**
 * What a route needs (docs/architecture.md#auth):
 * - `read`: people of any role; keys with `read` or `admin`
 * - `approve`: people with `approver` or `admin`; keys with `admin`
 * - `admin`: people with `admin`; keys with `admin`
 * - `ingest`: keys with `ingest` or `admin` (people never ingest)
 */
export type Capability = 'read' | 'approve' | 'admin' | 'ingest';

/** A person as the guard re-reads them on each request; null when unknown. */
export interface SessionUserRecord {
  id: string;
  projectId: string;
  email: string;
  role: Role;
  disabled: boolean;
}

/** Looks a person up by id (the token's `sub`). */
export type UserResolver = (userId: string) => Promise<SessionUserRecord | null>;

/** Header that cookie-authenticated requests changing state must send, with the value `1`. */
export const CSRF_HEADER_NAME = 'x-warden-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const ROLES: Record<Exclude<Capability, 'ingest'>, readonly Role[]> = {
  read: ['viewer', 'approver', 'admin'],
  approve: ['approver', 'admin'],
  admin: ['admin'],
};

/** Whether a principal has a capability. */
export function can(p: Principal, capability: Capability): boolean {
  if (p.kind === 'user') return capability !== 'ingest' && !!p.role && ROLES[capability].includes(p.role);
  if (p.scopes.includes('admin')) return true;
  if (capability === 'read') return p.scopes.includes('read');
  if (capability === 'ingest') return p.scopes.includes('ingest');
  return false;
}

function denial(p: Principal, capability: Capability): string {
  if (p.kind === 'user')
    return capability === 'ingest'
      ? 'people cannot ingest; use an API key with the "ingest" scope'
      : `role ${p.role} cannot ${capability}`;
  return capability === 'approve'
    ? 'API key lacks the "admin" scope needed to decide approvals'
    : `API key lacks the "${capability}" scope`;
}

/** Throws 403 unless a cookie-authenticated request that changes state carries `X-Warden-CSRF: 1`. */
export function assertCsrfHeader(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (req.headers[CSRF_HEADER_NAME] !== '1')
    throw forbidden(
      'requests signed in with the session cookie that change state must send X-Warden-CSRF: 1',
    );
}

/**
 * Authentication for routes that people and API keys share. A request with
 * `Authorization: Bearer <key>` is judged by the key alone; otherwise the `warden_session` cookie
 * is verified and the person re-read (disabled or unknown → 401). Cookie requests with an unsafe
 * method must carry `X-Warden-CSRF: 1` (403 otherwise; docs/decisions.md). Errors: 401 without
 * valid credentials, 403 with the wrong role or scope ("role viewer cannot approve").
 */
export class AuthGuard {
  constructor(
    readonly keys: KeyAuthenticator,
    readonly sessions: SessionTokens,
    private readonly users: UserResolver,
  ) {}

  /** The request's principal (key or person), or throws 401 / 403 (CSRF). */
  async authenticate(req: Request): Promise<Principal> {
    const secret = bearerOf(req);
    if (secret) {
      const p = await this.keys.authenticate(secret);
      if (!p) throw unauthenticated('unknown or revoked API key');
      return p;
    }
    const p = await this.sessionPrincipal(req);
    if (!p) throw unauthenticated('sign in (session cookie) or send Authorization: Bearer <key>');
    assertCsrfHeader(req);
    return p;
  }

  /** The person of the session cookie, or null without a valid cookie (disabled users included). */
  async sessionPrincipal(req: Request): Promise<Principal | null> {
    const token = this.sessions.tokenOf(req);
    const claims = token ? this.sessions.verify(token) : null;
    if (!claims) return null;
    const u = await this.users(claims.sub);
    if (!u || u.disabled || u.projectId !== claims.projectId) return null;
    return {
      kind: 'user',
      projectId: u.projectId,
      userId: u.id,
      email: u.email,
      role: u.role,
      scopes: [],
      actor: `user:${u.email}`,
    };
  }

  /** Middleware: authenticates, then requires `capability` (403 naming the role or scope otherwise). */
  require(capability: Capability): RequestHandler {
    return async (req, _res, next) => {
      try {
        const p = await this.authenticate(req);
        if (!can(p, capability)) throw forbidden(denial(p, capability));
        setPrincipal(req, p);
        next();
      } catch (err) {
        next(err);
      }
    };
  }
}
