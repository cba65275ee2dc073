import type { Request, RequestHandler } from 'express';
import { bearerOf, setPrincipal, type KeyAuthenticator, type Principal, type Role } from './auth';
import { forbidden, notFound, unauthenticated, validationError } from './errors';
import type { SessionTokens } from './session';

/**
 * What a route needs (docs/architecture.md#auth):
 * - `read`: people of any role; keys with `read` or `admin`
 * - `approve`: people with `approver` or `admin`; keys with `admin`
 * - `admin`: people with `admin`; keys with `admin`
 * - `ingest`: keys with `ingest` or `admin` (people never ingest)
 */
export type Capability = 'read' | 'approve' | 'admin' | 'ingest';

/**
 * A person as the guard re-reads them on each request: `role` is their role in the project asked
 * about, null when they are not a member of it.
 */
export interface SessionUserRecord {
  id: string;
  email: string;
  role: Role | null;
  disabled: boolean;
}

/** Looks a person up by id (the token's `sub`) with their role in `projectId` (null: no project). */
export type UserResolver = (userId: string, projectId: string | null) => Promise<SessionUserRecord | null>;

/**
 * A signed-in person with their current project (the session token's `projectId`) and their role
 * there; both null when they are no longer (or never were) a member of it.
 */
export interface SessionPerson {
  userId: string;
  email: string;
  projectId: string | null;
  role: Role | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The principal of a person acting in a project where they hold `role`. */
function personPrincipal(
  person: { userId: string; email: string },
  projectId: string,
  role: Role,
): Principal {
  return {
    kind: 'user',
    projectId,
    userId: person.userId,
    email: person.email,
    role,
    scopes: [],
    actor: `user:${person.email}`,
  };
}

/** Sets the signed-in person of a request (see {@link AuthGuard.requirePerson}). */
function setPerson(req: Request, p: SessionPerson): void {
  (req as Request & { person?: SessionPerson }).person = p;
}

/** The person set by {@link AuthGuard.requirePerson}; throws 401 when the route was mounted without it. */
export function personOf(req: Request): SessionPerson {
  const p = (req as Request & { person?: SessionPerson }).person;
  if (!p) throw unauthenticated('not signed in');
  return p;
}

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

  /**
   * The request's principal in its current project (a key's project, or the person's current
   * project), or throws 401, 403 (CSRF; a person without a current project).
   */
  async authenticate(req: Request): Promise<Principal> {
    const secret = bearerOf(req);
    if (secret) {
      const p = await this.keys.authenticate(secret);
      if (!p) throw unauthenticated('unknown or revoked API key');
      return p;
    }
    const person = await this.sessionPerson(req);
    if (!person) throw unauthenticated('sign in (session cookie) or send Authorization: Bearer <key>');
    assertCsrfHeader(req);
    if (!person.projectId || !person.role)
      throw forbidden(
        'no current project: choose one with POST /v1/auth/project or create one with POST /v1/projects',
      );
    return personPrincipal(person, person.projectId, person.role);
  }

  /**
   * The person of the session cookie with their role in the token's current project, or null
   * without a valid cookie (disabled and unknown people included).
   */
  async sessionPerson(req: Request): Promise<SessionPerson | null> {
    const token = this.sessions.tokenOf(req);
    const claims = token ? this.sessions.verify(token) : null;
    if (!claims) return null;
    const u = await this.users(claims.sub, claims.projectId);
    if (!u || u.disabled) return null;
    return {
      userId: u.id,
      email: u.email,
      projectId: u.role ? claims.projectId : null,
      role: u.role,
    };
  }

  /** The person's principal in their current project, or null (not signed in, or no current project). */
  async sessionPrincipal(req: Request): Promise<Principal | null> {
    const p = await this.sessionPerson(req);
    return p?.projectId && p.role ? personPrincipal(p, p.projectId, p.role) : null;
  }

  /**
   * Middleware for routes of people whatever their project (`/v1/projects` list and create, the
   * project switch): the session cookie only (401 without one; 403 for an API key, which belongs to
   * one project), CSRF checked; {@link personOf} reads the person.
   */
  requirePerson(): RequestHandler {
    return async (req, _res, next) => {
      try {
        if (bearerOf(req)) throw forbidden('people only: an API key belongs to one project');
        const person = await this.sessionPerson(req);
        if (!person) throw unauthenticated('not signed in');
        assertCsrfHeader(req);
        setPerson(req, person);
        next();
      } catch (err) {
        next(err);
      }
    };
  }

  /**
   * Middleware for routes of one named project (`req.params[param]`, a UUID or `current`): the
   * principal acts in that project. An API key only in its own project; a person only where they
   * are a member, with their role there. Anything else is 404 `project not found`, so that a
   * non-member cannot tell a project exists (docs/decisions.md "Projects and members"); then 403
   * without `capability`. `current` is the caller's current project ({@link AuthGuard.require}).
   */
  requireInProject(capability: Capability, param = 'projectId'): RequestHandler {
    return async (req, _res, next) => {
      try {
        const id = String(req.params[param] ?? '');
        let p: Principal;
        if (id === 'current') p = await this.authenticate(req);
        else {
          if (!UUID_RE.test(id))
            throw validationError('invalid project id', [
              { path: param, message: 'must be a UUID or "current"' },
            ]);
          const secret = bearerOf(req);
          if (secret) {
            const k = await this.keys.authenticate(secret);
            if (!k) throw unauthenticated('unknown or revoked API key');
            if (k.projectId !== id.toLowerCase()) throw notFound('project');
            p = k;
          } else {
            const token = this.sessions.tokenOf(req);
            const claims = token ? this.sessions.verify(token) : null;
            const u = claims ? await this.users(claims.sub, id.toLowerCase()) : null;
            if (!u || u.disabled)
              throw unauthenticated('sign in (session cookie) or send Authorization: Bearer <key>');
            assertCsrfHeader(req);
            if (!u.role) throw notFound('project');
            p = personPrincipal({ userId: u.id, email: u.email }, id.toLowerCase(), u.role);
          }
        }
        if (!can(p, capability)) throw forbidden(denial(p, capability));
        setPrincipal(req, p);
        next();
      } catch (err) {
        next(err);
      }
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
