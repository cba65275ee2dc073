import { Router } from 'express';
import { TOPICS, toCloudEvent, type EventBatchResponse, type RejectedEvent } from '@agent-warden/contracts';
import { BusUnavailableError, type EventBus } from '@agent-warden/bus';
import { AppError, principalOf, validationError, type Principal } from '@agent-warden/http';
import type { RequestHandler } from 'express';
import type { WardenMetrics } from '@agent-warden/observability';
import type { AgentDirectory } from '../agent-directory';
import type { IngestLimits } from '../config';
import { validateBatch } from '../ingest/validate-batch';

/**
 * `POST /v1/events`: validates each event on its own, rejects (code `forbidden_agent`) events whose
 * `agentId` is not an agent of the key's project or whose `agentVersionId` is not a version of that
 * agent (path `events.<i>.agentId` / `events.<i>.agentVersionId`), publishes the rest as CloudEvents
 * (key = sessionId) and answers 202 only after the event log has them. Session, run and event ids
 * are the client's and scoped by project downstream, so they need no check here (docs/decisions.md
 * "Ids are owned by a project"). When no event of the batch is valid the answer is a problem (400,
 * or 403 when every event names another project's agent or version) listing each offending path.
 * Counts accepted events and rejected ones by reason code in `metrics` (`warden_events_accepted_total`,
 * `warden_events_rejected_total`; a batch the log could not take counts as `event_log_unavailable`).
 */
export function eventsRouter(deps: {
  auth: RequestHandler;
  bus: EventBus;
  agents: AgentDirectory;
  limits: IngestLimits;
  metrics: WardenMetrics;
}): Router {
  const { accepted, rejected: rejectedEvents } = deps.metrics.events;
  const r = Router();
  r.post('/v1/events', deps.auth, async (req, res, next) => {
    let publishing = 0;
    try {
      const principal: Principal = principalOf(req);
      const body = req.body as unknown;
      if (!body || typeof body !== 'object' || !Array.isArray((body as { events?: unknown }).events))
        throw validationError('body must be an object with an "events" array', [
          { path: 'events', message: 'required array' },
        ]);
      const items = (body as { events: unknown[] }).events;
      if (items.length === 0)
        throw validationError('"events" is empty', [
          { path: 'events', message: 'must hold at least one event' },
        ]);
      if (items.length > deps.limits.maxEventsPerBatch) {
        rejectedEvents.inc({ reason: 'batch_too_large' }, items.length);
        throw new AppError(
          'batch_too_large',
          `batch holds ${items.length} events; the limit is ${deps.limits.maxEventsPerBatch}`,
          { errors: [{ path: 'events', message: `more than ${deps.limits.maxEventsPerBatch} items` }] },
        );
      }

      const length = Number(req.headers['content-length']);
      const { valid, rejected } = validateBatch(
        items,
        deps.limits.maxEventBytes,
        Number.isFinite(length) ? length : undefined,
      );
      const owned: typeof valid = [];
      const owners = new Map<string, boolean>();
      const versions = new Map<string, boolean>();
      for (const v of valid) {
        const { agentId, agentVersionId } = v.event;
        let mine = owners.get(agentId);
        if (mine === undefined) {
          const a = await deps.agents.lookup(agentId);
          mine = a?.projectId === principal.projectId;
          owners.set(agentId, mine);
        }
        if (!mine) {
          rejected.push({
            index: v.index,
            id: v.event.id,
            code: 'forbidden_agent',
            message: 'agentId is unknown or belongs to another project',
            errors: [
              { path: `events.${v.index}.agentId`, message: 'not an agent of this API key’s project' },
            ],
          });
          continue;
        }
        const versionKey = `${agentId}:${agentVersionId}`;
        let versionMine = versions.get(versionKey);
        if (versionMine === undefined) {
          versionMine = await deps.agents.ownsVersion(principal.projectId, agentId, agentVersionId);
          versions.set(versionKey, versionMine);
        }
        if (versionMine) owned.push(v);
        else
          rejected.push({
            index: v.index,
            id: v.event.id,
            code: 'forbidden_agent',
            message: 'agentVersionId is unknown or not a version of this agent in this project',
            errors: [
              {
                path: `events.${v.index}.agentVersionId`,
                message: 'not a version of agentId in this API key’s project',
              },
            ],
          });
      }
      rejected.sort((a, b) => a.index - b.index);
      for (const x of rejected) rejectedEvents.inc({ reason: x.code });

      if (owned.length === 0) throw allRejected(rejected);

      publishing = owned.length;
      await deps.bus.publish(
        TOPICS.agentEvents,
        owned.map((v) => ({ key: v.event.sessionId, value: toCloudEvent(principal.projectId, v.event) })),
      );
      publishing = 0;
      const out: EventBatchResponse = { accepted: owned.length, rejected };
      res.status(202).json(out);
      accepted.inc(owned.length);
    } catch (err) {
      if (publishing > 0 && err instanceof BusUnavailableError)
        rejectedEvents.inc({ reason: 'event_log_unavailable' }, publishing);
      next(
        err instanceof BusUnavailableError
          ? new AppError('event_log_unavailable', 'the event log cannot take the write now; retry', {
              retryAfterSeconds: 1,
              cause: err,
            })
          : err,
      );
    }
  });
  return r;
}

function allRejected(rejected: RejectedEvent[]): AppError {
  const errors = rejected.flatMap((r) => r.errors ?? [{ path: `events.${r.index}`, message: r.message }]);
  const forbidden = rejected.every((r) => r.code === 'forbidden_agent');
  return new AppError(
    forbidden ? 'forbidden' : 'validation_failed',
    forbidden
      ? 'no event of the batch belongs to an agent of this API key’s project'
      : `no valid event in the batch (${rejected.length} rejected)`,
    { errors },
  );
}
