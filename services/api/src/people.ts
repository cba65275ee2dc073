import { randomBytes } from 'node:crypto';
import type { RequestHandler, Router } from 'express';
import { authenticateApiKeyHash, findUser, type PrismaClient } from '@agent-warden/db';
import { AuthGuard, KeyAuthenticator, SessionTokens, type Role } from '@agent-warden/http';
import type { Logger } from '@agent-warden/observability';
import { ApprovalFeed } from './approval-feed';
import { apiKeysRouter } from './routes/api-keys';
import { approvalsRouter } from './routes/approvals';
import { authRouter } from './routes/auth';
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
}

/** Builds the api's authentication (API keys or the session cookie, re-reading the person each request). */
export function createApiAuth(db: PrismaClient, options: PeopleAuthOptions): ApiAuth {
  const keys = new KeyAuthenticator((hash) => authenticateApiKeyHash(db, hash));
  const sessions = new SessionTokens({
    secret: options.sessionSecret ?? randomBytes(48).toString('base64url'),
    secure: options.cookieSecure,
  });
  const guard = new AuthGuard(keys, sessions, async (id) => {
    const u = await findUser(db, id);
    return u
      ? {
          id: u.id,
          projectId: u.projectId,
          email: u.email,
          role: u.role as Role,
          disabled: u.disabledAt !== null,
        }
      : null;
  });
  return {
    keys,
    guard,
    read: guard.require('read'),
    approve: guard.require('approve'),
    admin: guard.require('admin'),
  };
}

/** Routes of people and approvals: sign-in, users, API keys, the approvals inbox, its stream and decisions. */
export function peopleRoutes(deps: {
  db: PrismaClient;
  logger: Logger;
  auth: ApiAuth;
  signal?: AbortSignal;
}): Router[] {
  const { db, logger, auth } = deps;
  const feed = new ApprovalFeed(db, logger.child({ component: 'approval-feed' }));
  deps.signal?.addEventListener('abort', () => feed.close(), { once: true });
  return [
    authRouter({ guard: auth.guard, db }),
    usersRouter({ admin: auth.admin, db }),
    apiKeysRouter({ admin: auth.admin, db, keys: auth.keys }),
    approvalsRouter({ read: auth.read, approve: auth.approve, db, feed, logger }),
  ];
}
