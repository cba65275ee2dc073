import { randomBytes } from 'node:crypto';
import type { RequestHandler, Router } from 'express';
import { authenticateApiKeyHash, findMembership, findUser, type PrismaClient } from '@agent-warden/db';
import { AuthGuard, KeyAuthenticator, SessionTokens, type Role } from '@agent-warden/http';
import type { Logger, WardenMetrics } from '@agent-warden/observability';
import { ApprovalFeed } from './approval-feed';
import { apiKeysRouter } from './routes/api-keys';
import { approvalsRouter } from './routes/approvals';
import { authRouter } from './routes/auth';
import { projectsRouter } from './routes/projects';
import { usersRouter } from './routes/users';

/** How people sign in: the session secret and the cookie's `Secure` attribute. */
export interface PeopleAuthOptions {
  /**
   * HS256 key of the session cookie (`WARDEN_JWT_SECRET`), at least 32 characters. Without it a
   * random key is made: sessions then hold only for this process (tests, embedded uses).
   */
  sessionSecret?: string;
  /** `Secure` on the cookie: `auto` (default) sets it when the request came over https. */
  cookieSecure?: boolean | 'auto';
  /** Aborted when the server stops: ends every approval stream. */
  signal?: AbortSignal;
}

/** The api's authentication: one key cache, the session tokens, and a guard per capability. */
export interface ApiAuth {
  keys: KeyAuthenticator;
  guard: AuthGuard;
  read: RequestHandler;
  approve: RequestHandler;
  admin: RequestHandler;
  /** A signed-in person, whatever their project (`/v1/projects` list and create, the switch). */
  person: RequestHandler;
  /** Admin of the project named by `:projectId` (a UUID or `current`). */
  projectAdmin: RequestHandler;
  /** Read capability in the project named by `:projectId`. */
  projectRead: RequestHandler;
}

/** Builds the api's authentication (API keys or the session cookie, re-reading the person each request). */
export function createApiAuth(db: PrismaClient, options: PeopleAuthOptions): ApiAuth {
  const keys = new KeyAuthenticator((hash) => authenticateApiKeyHash(db, hash));
  const sessions = new SessionTokens({
    secret: options.sessionSecret ?? randomBytes(48).toString('base64url'),
    secure: options.cookieSecure,
  });
  const guard = new AuthGuard(keys, sessions, async (id, projectId) => {
    const u = await findUser(db, id);
    if (!u) return null;
    const m = projectId ? await findMembership(db, projectId, id) : null;
    return {
      id: u.id,
      email: u.email,
      role: (m?.role as Role | undefined) ?? null,
      disabled: u.disabledAt !== null,
    };
  });
  return {
    keys,
    guard,
    read: guard.require('read'),
    approve: guard.require('approve'),
    admin: guard.require('admin'),
    person: guard.requirePerson(),
    projectAdmin: guard.requireInProject('admin'),
    projectRead: guard.requireInProject('read'),
  };
}

/** Routes of people and approvals: sign-in, projects and their members, users, API keys, the approvals inbox, its stream and decisions. */
export function peopleRoutes(deps: {
  db: PrismaClient;
  logger: Logger;
  auth: ApiAuth;
  signal?: AbortSignal;
  metrics?: WardenMetrics;
}): Router[] {
  const { db, logger, auth } = deps;
  const feed = new ApprovalFeed(db, logger.child({ component: 'approval-feed' }));
  deps.signal?.addEventListener('abort', () => feed.close(), { once: true });
  return [
    authRouter({ guard: auth.guard, person: auth.person, db }),
    projectsRouter({ ...auth, db }),
    usersRouter({ admin: auth.admin, projectAdmin: auth.projectAdmin, db }),
    apiKeysRouter({ admin: auth.admin, projectAdmin: auth.projectAdmin, db, keys: auth.keys }),
    approvalsRouter({ read: auth.read, approve: auth.approve, db, feed, logger, metrics: deps.metrics }),
  ];
}
