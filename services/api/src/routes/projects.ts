import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { ProjectWriteRequest } from '@agent-warden/contracts';
import {
  apiKeyIdsOf,
  LastProjectError,
  createProjectWithAdmin,
  deleteProject,
  findProject,
  firstMembership,
  listProjectsOf,
  recordAudit,
  renameProject,
  type PrismaClient,
} from '@agent-warden/db';
import {
  AppError,
  actorOf,
  notFound,
  parseOr400,
  personOf,
  principalOf,
  type AuthGuard,
} from '@agent-warden/http';
import { projectView } from './project-view';

/** Maps {@link LastProjectError} to a 409 problem. */
const projectErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  if (err instanceof LastProjectError) return next(new AppError('conflict', err.message));
  next(err);
};

/**
 * Projects (docs/decisions.md "Projects and members"):
 * - `GET /v1/projects` (a signed-in person): `{items: Project[]}`, the projects they belong to with
 *   their role in each, oldest first.
 * - `POST /v1/projects {name}` (any signed-in person): 201 Project; the creator becomes its admin.
 *   It does not become current: `POST /v1/auth/project` switches.
 * - `GET /v1/projects/{projectId}` (read there): the project.
 * - `PATCH /v1/projects/{projectId} {name}` (admin there): the renamed project.
 * - `DELETE /v1/projects/{projectId}` (admin there): 204; the project and every row of it go in one
 *   transaction; 409 for the installation's last project. A person whose current project it was is
 *   moved to their oldest remaining one (a new cookie).
 * A project the caller does not belong to (or, for an API key, not its own) answers 404. Writes are
 * audited (`project.created`, `project.renamed`; `project.deleted` is the one row a deleted project
 * leaves).
 */
export function projectsRouter(deps: {
  /** The api's guard: its key cache and session tokens. */
  guard: AuthGuard;
  person: RequestHandler;
  projectRead: RequestHandler;
  projectAdmin: RequestHandler;
  db: PrismaClient;
}): Router {
  const { db, guard } = deps;
  const auth = deps;
  const r = Router();

  r.get('/v1/projects', auth.person, async (req, res) => {
    const projects = await listProjectsOf(db, personOf(req).userId);
    res.json({ items: projects.map((p) => projectView(p, p.role)) });
  });

  r.post('/v1/projects', auth.person, async (req, res) => {
    const person = personOf(req);
    const body = parseOr400(ProjectWriteRequest, req.body);
    const project = await createProjectWithAdmin(db, body.name, person.userId);
    const view = projectView(project, 'admin');
    await recordAudit(db, project.id, { actor: `user:${person.email}`, keyId: null }, [
      { action: 'project.created', entityType: 'project', entityId: project.id, after: view },
    ]);
    res.status(201).json(view);
  });

  r.get('/v1/projects/:projectId', auth.projectRead, async (req, res) => {
    const p = principalOf(req);
    const project = await findProject(db, p.projectId);
    if (!project) throw notFound('project');
    res.json(projectView(project, p.role ?? null));
  });

  r.patch('/v1/projects/:projectId', auth.projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(ProjectWriteRequest, req.body);
    const before = await findProject(db, p.projectId);
    const after = before && (await renameProject(db, p.projectId, body.name));
    if (!before || !after) throw notFound('project');
    await recordAudit(db, p.projectId, actorOf(p), [
      {
        action: 'project.renamed',
        entityType: 'project',
        entityId: p.projectId,
        before: projectView(before, null),
        after: projectView(after, null),
      },
    ]);
    res.json(projectView(after, p.role ?? null));
  });

  r.delete('/v1/projects/:projectId', auth.projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const keyIds = await apiKeyIdsOf(db, p.projectId);
    const deleted = await deleteProject(db, p.projectId, actorOf(p));
    if (!deleted) throw notFound('project');
    // Its keys stop at once here; other processes drop them when their key cache ends (30 s).
    for (const id of keyIds) guard.keys.invalidate(id);
    if (p.kind === 'user' && p.userId) {
      const person = await guard.sessionPerson(req);
      if (person && !person.projectId) {
        const next = await firstMembership(db, p.userId);
        guard.sessions.setCookie(
          req,
          res,
          guard.sessions.sign({
            sub: p.userId,
            projectId: next?.projectId ?? null,
            email: person.email,
          }),
        );
      }
    }
    res.status(204).end();
  });
  r.use(projectErrors);
  return r;
}
