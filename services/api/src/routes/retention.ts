import { Router, type RequestHandler } from 'express';
import { RetentionSettingsRequest, type RetentionView } from '@agent-warden/contracts';
import { actorOf, AppError, notFound, parseOr400, principalOf } from '@agent-warden/http';
import { getRetention, runRetention, setRetentionDays, type PrismaClient } from '@agent-warden/db';

/**
 * Per-project retention (docs/decisions.md "Retention by whole sessions"):
 * - `GET /v1/projects/{projectId}/retention` (read there): contracts `RetentionView`, the setting
 *   and the last run of the retention job;
 * - `PUT /v1/projects/{projectId}/retention {retentionDays}` (admin there): sets it (null: keep
 *   forever), audited as `project.settings.updated`; answers the new `RetentionView`;
 * - `POST /v1/projects/{projectId}/retention/run` (admin there): runs the job now and answers the
 *   finished run (`RetentionRun`); 409 when the project has no window or a run is in progress.
 */
export function retentionRouter(deps: {
  projectRead: RequestHandler;
  projectAdmin: RequestHandler;
  db: PrismaClient;
}): Router {
  const { db } = deps;
  const r = Router();

  const view = async (projectId: string): Promise<RetentionView> => {
    const state = await getRetention(db, projectId);
    if (!state) throw notFound('project');
    return state;
  };

  r.get('/v1/projects/:projectId/retention', deps.projectRead, async (req, res) => {
    res.json(await view(principalOf(req).projectId));
  });

  r.put('/v1/projects/:projectId/retention', deps.projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(RetentionSettingsRequest, req.body);
    await setRetentionDays(db, p.projectId, actorOf(p), body.retentionDays);
    res.json(await view(p.projectId));
  });

  r.post('/v1/projects/:projectId/retention/run', deps.projectAdmin, async (req, res) => {
    const p = principalOf(req);
    const out = await runRetention(db, p.projectId, { trigger: 'manual' });
    if ('skipped' in out) {
      if (out.skipped === 'no_project') throw notFound('project');
      throw new AppError(
        'conflict',
        out.skipped === 'no_retention'
          ? 'the project has no retention window (PUT retentionDays first)'
          : 'a retention run of this project is in progress',
      );
    }
    res.json(out.run);
  });
  return r;
}
