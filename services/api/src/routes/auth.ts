import { Router, type Request, type RequestHandler, type Response } from 'express';
import { LoginRequest, SwitchProjectRequest, type AuthSessionResponse } from '@agent-warden/contracts';
import {
  authenticateUser,
  findMembership,
  findUser,
  firstMembership,
  listProjectsOf,
  type PrismaClient,
  type User,
} from '@agent-warden/db';
import {
  assertCsrfHeader,
  notFound,
  parseOr400,
  personOf,
  unauthenticated,
  type AuthGuard,
} from '@agent-warden/http';
import { loginLimiter } from '../login-limit';
import { projectView } from './project-view';

/**
 * The session answer: the person with their current project and role there (null when they belong
 * to none) and every project they belong to.
 */
async function sessionOf(db: PrismaClient, u: User, projectId: string | null): Promise<AuthSessionResponse> {
  const projects = await listProjectsOf(db, u.id);
  const current = projects.find((p) => p.id === projectId);
  return {
    user: {
      id: u.id,
      email: u.email,
      name: u.name,
      role: current?.role ?? null,
      projectId: current?.id ?? null,
    },
    projects: projects.map((p) => projectView(p, p.role)),
  };
}

/**
 * People's sign-in (docs/architecture.md#auth): `POST /v1/auth/login` checks email and password
 * (the same 401 for an unknown email, a wrong password and a disabled user; an unknown email costs
 * a scrypt too) and sets the `warden_session` cookie naming the person's current project (their
 * oldest membership at sign-in); `POST /v1/auth/project` makes another project of theirs current
 * (re-issues the cookie; 404 for a project they are not a member of); `POST /v1/auth/logout`
 * clears it (204); `GET /v1/auth/me` answers the signed-in person (401 without a valid cookie) and,
 * when their current project is gone (deleted, or they were removed from it), moves them to their
 * oldest remaining one. Login and logout need `X-Warden-CSRF: 1` like every cookie request that
 * changes state. Failed sign-ins are throttled per client address and email, and per address across emails ({@link loginLimiter}:
 * 429 after 10 failures for one email, or 50 for any emails, from one address in 15 minutes).
 */
export function authRouter(deps: { guard: AuthGuard; person: RequestHandler; db: PrismaClient }): Router {
  const { guard, db, person } = deps;
  const r = Router();

  /** Sets a cookie for `u` with `projectId` current and answers the session. */
  const signIn = async (req: Request, res: Response, u: User, projectId: string | null) => {
    guard.sessions.setCookie(req, res, guard.sessions.sign({ sub: u.id, projectId, email: u.email }));
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json(await sessionOf(db, u, projectId));
  };

  r.post('/v1/auth/login', ...loginLimiter(), async (req, res) => {
    assertCsrfHeader(req);
    const body = parseOr400(LoginRequest, req.body);
    const user = await authenticateUser(db, body.email, body.password);
    if (!user) throw unauthenticated('wrong email or password');
    await signIn(req, res, user, (await firstMembership(db, user.id))?.projectId ?? null);
  });

  r.post('/v1/auth/project', person, async (req, res) => {
    const p = personOf(req);
    const body = parseOr400(SwitchProjectRequest, req.body);
    const user = await findUser(db, p.userId);
    if (!user) throw unauthenticated('not signed in');
    if (!(await findMembership(db, body.projectId, user.id))) throw notFound('project');
    await signIn(req, res, user, body.projectId);
  });

  r.post('/v1/auth/logout', (req, res) => {
    assertCsrfHeader(req);
    guard.sessions.clearCookie(req, res);
    res.status(204).end();
  });

  r.get('/v1/auth/me', async (req, res) => {
    const p = await guard.sessionPerson(req);
    const user = p ? await findUser(db, p.userId) : null;
    if (!p || !user) throw unauthenticated('not signed in');
    if (!p.projectId) {
      const first = await firstMembership(db, user.id);
      if (first) return signIn(req, res, user, first.projectId);
    }
    res.setHeader('Cache-Control', 'no-store');
    res.json(await sessionOf(db, user, p.projectId));
  });
  return r;
}
