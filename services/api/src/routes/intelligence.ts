import { Router, type RequestHandler } from 'express';
import {
  FailedIntelligenceJobsQuery,
  IntelligenceVersionQuery,
  QUEUES,
  Uuid,
  type FailedIntelligenceJob,
  type IntelligenceJobAccepted,
} from '@agent-warden/contracts';
import { intelligenceVersions, latestIntelligence, sessionExists, type PrismaClient } from '@agent-warden/db';
import { AppError, notFound, parseOr400, principalOf } from '@agent-warden/http';
import type { JobQueue } from '@agent-warden/queue';

/** Delay of a manual regeneration job, ms: it replaces a pending readiness job of the session. */
const MANUAL_DELAY_MS = 100;

/**
 * Runtime intelligence of a session (docs/architecture.md#runtime-intelligence): the latest version (or
 * `?version=N`) and the list of versions (read scope); a regeneration on demand (admin scope: a
 * `session-ready` job with reason `manual`, answered 202, which takes the place of a pending
 * readiness job of the session); and the failed jobs of the project (admin scope). Without a job
 * queue (`queue` undefined) or when it cannot take the job, regeneration answers 503.
 */
export function intelligenceRouter(deps: {
  read: RequestHandler;
  admin: RequestHandler;
  db: PrismaClient;
  queue?: JobQueue;
}): Router {
  const { db } = deps;
  const r = Router();

  async function sessionOr404(projectId: string, raw: unknown): Promise<string> {
    const id = parseOr400(Uuid, raw, 'sessionId');
    if (!(await sessionExists(db, projectId, id))) throw notFound('session');
    return id;
  }

  r.get('/v1/sessions/:sessionId/intelligence', deps.read, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(IntelligenceVersionQuery, req.query, 'query');
    const id = await sessionOr404(projectId, req.params.sessionId);
    const view = await latestIntelligence(db, projectId, id, q.version);
    if (!view) throw notFound(q.version ? `intelligence version ${q.version}` : 'intelligence');
    res.json(view);
  });

  r.get('/v1/sessions/:sessionId/intelligence/versions', deps.read, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = await sessionOr404(projectId, req.params.sessionId);
    res.json({ items: await intelligenceVersions(db, projectId, id) });
  });

  r.post('/v1/sessions/:sessionId/intelligence', deps.admin, async (req, res) => {
    const { projectId } = principalOf(req);
    const sessionId = await sessionOr404(projectId, req.params.sessionId);
    if (!deps.queue) throw new AppError('not_ready', 'no job queue is configured (REDIS_URL)');
    const payload = { projectId, sessionId, reason: 'manual' as const };
    let jobId: string;
    try {
      jobId = await deps.queue.enqueue(QUEUES.sessionReady, payload, {
        debounceKey: `${projectId}:${sessionId}`,
        delayMs: MANUAL_DELAY_MS,
      });
    } catch (err) {
      throw new AppError('not_ready', 'the job queue cannot take the job', {
        cause: err,
        retryAfterSeconds: 1,
      });
    }
    const accepted: IntelligenceJobAccepted = { jobId, ...payload };
    res.status(202).json(accepted);
  });

  r.get('/v1/intelligence/jobs/failed', deps.admin, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(FailedIntelligenceJobsQuery, req.query, 'query');
    if (!deps.queue) throw new AppError('not_ready', 'no job queue is configured (REDIS_URL)');
    // The queue is shared by every project: read a wider window and keep this project's jobs.
    const failed = await deps.queue.failed(QUEUES.sessionReady, Math.min(q.limit * 10, 1000));
    res.json({
      items: failed
        .filter((j) => j.payload.projectId === projectId)
        .slice(0, q.limit)
        .map((j): FailedIntelligenceJob => ({
          id: j.id,
          sessionId: j.payload.sessionId,
          reason: j.payload.reason,
          error: j.error,
          attempts: j.attempts,
          failedAt: j.failedAt,
        })),
    });
  });
  return r;
}
