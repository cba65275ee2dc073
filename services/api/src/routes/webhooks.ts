import { Router, type RequestHandler } from 'express';
import {
  Uuid,
  WebhookCreateRequest,
  WebhookDeliveriesQuery,
  WebhookUpdateRequest,
} from '@agent-warden/contracts';
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  enqueueWebhookPing,
  findWebhookSubscription,
  listWebhookDeliveries,
  listWebhookSubscriptions,
  recordAudit,
  updateWebhookSubscription,
  webhookDeliveryView,
  webhookSubscriptionView,
  type PrismaClient,
} from '@agent-warden/db';
import { actorOf, generateWebhookSecret, notFound, parseOr400, principalOf } from '@agent-warden/http';

/**
 * Webhook subscriptions of the caller's current project (docs/operations.md#notifications), all
 * `admin` (a subscription sends the project's approvals and blocks elsewhere):
 * - `GET /v1/webhooks`: the subscriptions, oldest first, never their secrets;
 * - `POST /v1/webhooks` ({@link WebhookCreateRequest}): 201 with the subscription and its signing
 *   secret, shown this once (`Cache-Control: no-store`);
 * - `PATCH /v1/webhooks/{webhookId}` ({@link WebhookUpdateRequest}) and `DELETE` (204, its delivery
 *   log with it); 404 for a subscription of another project;
 * - `POST /v1/webhooks/{webhookId}/test`: queues a `webhook.ping` delivery (202 with it), sent by
 *   the worker like any other;
 * - `GET /v1/webhooks/{webhookId}/deliveries?limit`: the delivery log, newest first.
 * Changes are audited (`webhook.created` / `.updated` / `.deleted`), without the secret.
 */
export function webhooksRouter(deps: { admin: RequestHandler; db: PrismaClient }): Router {
  const { db, admin } = deps;
  const r = Router();

  const find = async (projectId: string, raw: unknown) => {
    const id = parseOr400(Uuid, raw, 'webhookId');
    const s = await findWebhookSubscription(db, projectId, id);
    if (!s) throw notFound('webhook subscription');
    return s;
  };

  r.get('/v1/webhooks', admin, async (req, res) => {
    const rows = await listWebhookSubscriptions(db, principalOf(req).projectId);
    res.json({ items: rows.map(webhookSubscriptionView) });
  });

  r.post('/v1/webhooks', admin, async (req, res) => {
    const p = principalOf(req);
    const body = parseOr400(WebhookCreateRequest, req.body);
    const secret = generateWebhookSecret();
    const row = await createWebhookSubscription(db, {
      projectId: p.projectId,
      url: body.url,
      eventTypes: [...new Set(body.eventTypes)],
      format: body.format,
      enabled: body.enabled,
      secret,
      createdBy: p.actor,
    });
    const view = webhookSubscriptionView(row);
    await recordAudit(db, p.projectId, actorOf(p), [
      { action: 'webhook.created', entityType: 'webhook', entityId: row.id, after: view },
    ]);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ ...view, secret });
  });

  r.patch('/v1/webhooks/:webhookId', admin, async (req, res) => {
    const p = principalOf(req);
    const before = await find(p.projectId, req.params.webhookId);
    const body = parseOr400(WebhookUpdateRequest, req.body);
    const after = await updateWebhookSubscription(db, p.projectId, before.id, {
      ...body,
      ...(body.eventTypes ? { eventTypes: [...new Set(body.eventTypes)] } : {}),
    });
    if (!after) throw notFound('webhook subscription');
    const view = webhookSubscriptionView(after);
    await recordAudit(db, p.projectId, actorOf(p), [
      {
        action: 'webhook.updated',
        entityType: 'webhook',
        entityId: after.id,
        before: webhookSubscriptionView(before),
        after: view,
      },
    ]);
    res.json(view);
  });

  r.delete('/v1/webhooks/:webhookId', admin, async (req, res) => {
    const p = principalOf(req);
    const before = await find(p.projectId, req.params.webhookId);
    if (await deleteWebhookSubscription(db, p.projectId, before.id))
      await recordAudit(db, p.projectId, actorOf(p), [
        {
          action: 'webhook.deleted',
          entityType: 'webhook',
          entityId: before.id,
          before: webhookSubscriptionView(before),
        },
      ]);
    res.status(204).end();
  });

  r.post('/v1/webhooks/:webhookId/test', admin, async (req, res) => {
    const s = await find(principalOf(req).projectId, req.params.webhookId);
    const d = await enqueueWebhookPing(db, s);
    res.status(202).json(webhookDeliveryView(d));
  });

  r.get('/v1/webhooks/:webhookId/deliveries', admin, async (req, res) => {
    const { projectId } = principalOf(req);
    const s = await find(projectId, req.params.webhookId);
    const q = parseOr400(WebhookDeliveriesQuery, req.query, 'query');
    const rows = await listWebhookDeliveries(db, projectId, s.id, q.limit);
    res.json({ items: rows.map(webhookDeliveryView) });
  });
  return r;
}
