import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { MemberAddRequest, Uuid, UserCreateRequest, UserUpdateRequest } from '@agent-warden/contracts';
import {
  projectsAdministeredBy,
  AlreadyMemberError,
  ForeignAccountError,
  LastAdminError,
  UserEmailTakenError,
  addMember,
  createUser,
  findMember,
  findUserByEmail,
  listMembers,
  recordAudit,
  removeMember,
  updateMember,
  userView,
  type PrismaClient,
} from '@agent-warden/db';
import { AppError, actorOf, notFound, parseOr400, principalOf, type Principal } from '@agent-warden/http';

/** Maps the typed errors of the member writes to 409 / 403 problems. */
const userErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  if (err instanceof UserEmailTakenError)
    return next(
      new AppError('conflict', err.message, { errors: [{ path: 'email', message: 'already taken' }] }),
    );
  if (err instanceof AlreadyMemberError)
    return next(new AppError('conflict', err.message, { errors: [{ path: 'email', message: err.message }] }));
  if (err instanceof LastAdminError)
    return next(new AppError('conflict', err.message, { errors: [{ path: 'role', message: err.message }] }));
  if (err instanceof ForeignAccountError) return next(new AppError('forbidden', err.message));
  next(err);
};

/** Project ids the principal administers: a key its own project, a person every project where they are admin. */
async function administeredBy(db: PrismaClient, p: Principal): Promise<string[]> {
  if (p.kind !== 'user' || !p.userId) return [p.projectId];
  return projectsAdministeredBy(db, p.userId);
}

/**
 * People of a project (`admin` there), at two addresses: `/v1/users` (the caller's current project)
 * and `/v1/projects/{projectId}/members` (a named project; `current` works too).
 * - `GET` lists the members with their role here.
 * - `POST /v1/users {email, password, role, name?}` creates an account and its membership (409 when
 *   the email is taken); `POST …/members {email, role, password?, name?}` adds an existing person,
 *   or creates one when a password is given (409 for a password with an existing email, or a person
 *   already a member; 400 naming `password` for an unknown email without one).
 * - `PATCH …/{userId} {role?, disabled?, name?, password?}`: the role here; account-wide changes only
 *   by an admin of every project the person belongs to (403 otherwise); 409 when no enabled admin
 *   would remain.
 * - `DELETE /v1/projects/{projectId}/members/{userId}` removes the membership (the account stays;
 *   409 for the last enabled admin).
 * Changes are audited (`user.created`, `member.added`, `user.updated`, `member.removed`) without
 * password hashes (docs/decisions.md "Projects and members").
 */
export function usersRouter(deps: {
  admin: RequestHandler;
  projectAdmin: RequestHandler;
  db: PrismaClient;
}): Router {
  const { db, admin, projectAdmin } = deps;
  const r = Router();
  const userIdOf = (req: Request) => parseOr400(Uuid, req.params.userId, 'userId');

  const list: RequestHandler = async (req, res) => {
    const members = await listMembers(db, principalOf(req).projectId);
    res.json({ items: members.map(userView) });
  };
  r.get('/v1/users', admin, list);
  r.get('/v1/projects/:projectId/members', projectAdmin, list);

  r.post('/v1/users', admin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(UserCreateRequest, req.body);
    const user = await createUser(db, { projectId: p.projectId, ...body });
    const view = userView({ ...user, role: body.role, projectId: p.projectId });
    await recordAudit(db, p.projectId, actorOf(p), [
      { action: 'user.created', entityType: 'user', entityId: user.id, after: view },
    ]);
    res.status(201).json(view);
  });

  r.post('/v1/projects/:projectId/members', projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(MemberAddRequest, req.body);
    const existing = await findUserByEmail(db, body.email);
    let action: string;
    let userId: string;
    if (existing) {
      if (body.password !== undefined)
        throw new AppError(
          'conflict',
          'a person with this email already exists: add them without a password',
          {
            errors: [{ path: 'password', message: 'must be absent for an existing person' }],
          },
        );
      await addMember(db, p.projectId, existing.id, body.role);
      action = 'member.added';
      userId = existing.id;
    } else {
      if (body.password === undefined)
        throw new AppError('validation_failed', 'no person has this email: send a password to create one', {
          errors: [{ path: 'password', message: 'required to create a new person' }],
        });
      const { password, ...rest } = body;
      userId = (await createUser(db, { ...rest, password, projectId: p.projectId })).id;
      action = 'user.created';
    }
    const view = userView((await findMember(db, p.projectId, userId))!);
    await recordAudit(db, p.projectId, actorOf(p), [
      { action, entityType: 'user', entityId: userId, after: view },
    ]);
    res.status(201).json(view);
  });

  const update: RequestHandler = async (req, res) => {
    const p = principalOf(req);
    const id = userIdOf(req);
    const body = parseOr400(UserUpdateRequest, req.body);
    const before = await findMember(db, p.projectId, id);
    if (!before) throw notFound('user');
    const user = await updateMember(db, p.projectId, id, body, await administeredBy(db, p));
    if (!user) throw notFound('user');
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
  };
  r.patch('/v1/users/:userId', admin, update);
  r.patch('/v1/projects/:projectId/members/:userId', projectAdmin, update);

  r.delete('/v1/projects/:projectId/members/:userId', projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const removed = await removeMember(db, p.projectId, userIdOf(req));
    if (!removed) throw notFound('member');
    await recordAudit(db, p.projectId, actorOf(p), [
      { action: 'member.removed', entityType: 'user', entityId: removed.id, before: userView(removed) },
    ]);
    res.status(204).end();
  });
  r.use(userErrors);
  return r;
}
