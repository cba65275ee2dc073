import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { Uuid, UserCreateRequest, UserUpdateRequest } from '@agent-warden/contracts';
import {
  LastAdminError,
  UserEmailTakenError,
  createUser,
  listUsers,
  recordAudit,
  updateUser,
  userView,
  type PrismaClient,
} from '@agent-warden/db';
import { AppError, actorOf, notFound, parseOr400, principalOf } from '@agent-warden/http';

/** Maps the typed errors of the user writes to 409 problems. */
const userErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  if (err instanceof UserEmailTakenError)
    return next(
      new AppError('conflict', err.message, { errors: [{ path: 'email', message: 'already taken' }] }),
    );
  if (err instanceof LastAdminError)
    return next(new AppError('conflict', err.message, { errors: [{ path: 'role', message: err.message }] }));
  next(err);
};

/**
 * People of the project (`admin`): `GET /v1/users` lists them, `POST /v1/users` creates one
 * (201; 409 when the email is taken), `PATCH /v1/users/{id}` changes the role, disables / enables,
 * renames or sets a new password (409 when no enabled admin would remain). Changes are audited
 * (`user.created`, `user.updated`) without password hashes.
 */
export function usersRouter(deps: { admin: RequestHandler; db: PrismaClient }): Router {
  const { db, admin } = deps;
  const r = Router();

  r.get('/v1/users', admin, async (req, res) => {
    const users = await listUsers(db, principalOf(req).projectId);
    res.json({ items: users.map(userView) });
  });

  r.post('/v1/users', admin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(UserCreateRequest, req.body);
    const user = await createUser(db, { projectId: p.projectId, ...body });
    const view = userView(user);
    await recordAudit(db, p.projectId, actorOf(p), [
      { action: 'user.created', entityType: 'user', entityId: user.id, after: view },
    ]);
    res.status(201).json(view);
  });

  r.patch('/v1/users/:userId', admin, async (req, res) => {
    const p = principalOf(req);
    const id = parseOr400(Uuid, req.params.userId, 'userId');
    const body = parseOr400(UserUpdateRequest, req.body);
    const before = await db.user.findFirst({ where: { id, projectId: p.projectId } });
    const user = before ? await updateUser(db, p.projectId, id, body) : null;
    if (!before || !user) throw notFound('user');
    const view = userView(user);
    await recordAudit(db, p.projectId, actorOf(p), [
      {
        action: 'user.updated',
        entityType: 'user',
        entityId: user.id,
        before: userView(before),
        after: { ...view, ...(body.password !== undefined ? { passwordChanged: true } : {}) },
      },
    ]);
    res.json(view);
  });
  r.use(userErrors);
  return r;
}
