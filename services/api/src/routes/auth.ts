import { Router } from 'express';
import { LoginRequest } from '@agent-warden/contracts';
import { authenticateUser, findUser, type PrismaClient, type User } from '@agent-warden/db';
import { assertCsrfHeader, parseOr400, unauthenticated, type AuthGuard, type Role } from '@agent-warden/http';
import { loginLimiter } from '../login-limit';

const sessionUser = (u: User) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role as Role,
  projectId: u.projectId,
});

/**
 * People's sign-in (DESIGN.md "Auth"): `POST /v1/auth/login` checks email and password (the same
 * 401 for an unknown email, a wrong password and a disabled user; an unknown email costs a scrypt
 * too) and sets the `warden_session` cookie; `POST /v1/auth/logout` clears it (204);
 * `GET /v1/auth/me` answers the signed-in person (401 without a valid cookie). Login and logout
 * need `X-Warden-CSRF: 1` like every cookie request that changes state. Failed sign-ins are
 * throttled per client address and email, and per address across emails ({@link loginLimiter}:
 * 429 after 10 failures for one email, or 50 for any emails, from one address in 15 minutes).
 */
export function authRouter(deps: { guard: AuthGuard; db: PrismaClient }): Router {
  const { guard, db } = deps;
  const r = Router();

  r.post('/v1/auth/login', ...loginLimiter(), async (req, res) => {
    assertCsrfHeader(req);
    const body = parseOr400(LoginRequest, req.body);
    const user = await authenticateUser(db, body.email, body.password);
    if (!user) throw unauthenticated('wrong email or password');
    const token = guard.sessions.sign({
      sub: user.id,
      projectId: user.projectId,
      role: user.role as Role,
      email: user.email,
    });
    guard.sessions.setCookie(req, res, token);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ user: sessionUser(user) });
  });

  r.post('/v1/auth/logout', (req, res) => {
    assertCsrfHeader(req);
    guard.sessions.clearCookie(req, res);
    res.status(204).end();
  });

  r.get('/v1/auth/me', async (req, res) => {
    const p = await guard.sessionPrincipal(req);
    const user = p?.userId ? await findUser(db, p.userId, p.projectId) : null;
    if (!user) throw unauthenticated('not signed in');
    res.setHeader('Cache-Control', 'no-store');
    res.json({ user: sessionUser(user) });
  });
  return r;
}
