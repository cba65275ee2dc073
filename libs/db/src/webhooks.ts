import { newId } from '@agent-warden/contracts';
import type {
  WebhookDeliveryStatus,
  WebhookDeliveryView,
  WebhookEventType,
  WebhookFormat,
  WebhookSubscriptionView,
} from '@agent-warden/contracts';
import type { PrismaClient } from './client';
import type {
  WebhookDelivery,
  WebhookSubscription,
  ApprovalTransition,
  Approval,
  GuardrailEvaluation,
} from './generated/prisma/client';

export type { WebhookDelivery, WebhookSubscription };

/**
 * Webhook subscriptions and their delivery log (docs/operations.md#notifications). Deliveries of
 * approval and block events are inserted by triggers (migration `20261124165853_webhooks`) in the
 * transaction that records their cause; this module reads them, claims due ones for the worker and
 * records each attempt.
 */

/** Wire form of a subscription: never its secret. */
export function webhookSubscriptionView(s: WebhookSubscription): WebhookSubscriptionView {
  return {
    id: s.id,
    url: s.url,
    eventTypes: s.eventTypes as WebhookEventType[],
    format: s.format as WebhookFormat,
    enabled: s.enabled,
    createdBy: s.createdBy,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** Wire form of a delivery-log row (`nextAttemptAt` null once it is no longer pending). */
export function webhookDeliveryView(d: WebhookDelivery): WebhookDeliveryView {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status as WebhookDeliveryStatus,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    durationMs: d.durationMs,
    nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    deliveredAt: d.deliveredAt ? d.deliveredAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
  };
}

/** Stores a new subscription (the caller made the id and the secret). */
export async function createWebhookSubscription(
  db: PrismaClient,
  data: {
    projectId: string;
    url: string;
    eventTypes: WebhookEventType[];
    secret: string;
    format: WebhookFormat;
    enabled: boolean;
    createdBy: string;
  },
): Promise<WebhookSubscription> {
  return db.webhookSubscription.create({ data: { id: newId(), ...data } });
}

/** The project's subscriptions, oldest first. */
export async function listWebhookSubscriptions(
  db: PrismaClient,
  projectId: string,
): Promise<WebhookSubscription[]> {
  return db.webhookSubscription.findMany({
    where: { projectId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** One subscription of the project, or null. */
export async function findWebhookSubscription(
  db: PrismaClient,
  projectId: string,
  id: string,
): Promise<WebhookSubscription | null> {
  return db.webhookSubscription.findFirst({ where: { projectId, id } });
}

/** Changes a subscription of the project; null when it is not one. */
export async function updateWebhookSubscription(
  db: PrismaClient,
  projectId: string,
  id: string,
  patch: { url?: string; eventTypes?: WebhookEventType[]; format?: WebhookFormat; enabled?: boolean },
): Promise<WebhookSubscription | null> {
  const res = await db.webhookSubscription.updateMany({
    where: { projectId, id },
    data: { ...patch, updatedAt: new Date() },
  });
  return res.count === 1 ? findWebhookSubscription(db, projectId, id) : null;
}

/** Deletes a subscription of the project and its delivery log (cascade); false when it is not one. */
export async function deleteWebhookSubscription(
  db: PrismaClient,
  projectId: string,
  id: string,
): Promise<boolean> {
  const res = await db.webhookSubscription.deleteMany({ where: { projectId, id } });
  return res.count === 1;
}

/** Queues a `webhook.ping` delivery to the subscription (sent by the worker like any other). */
export async function enqueueWebhookPing(
  db: PrismaClient,
  s: Pick<WebhookSubscription, 'id' | 'projectId'>,
): Promise<WebhookDelivery> {
  return db.webhookDelivery.create({
    data: {
      id: newId(),
      projectId: s.projectId,
      subscriptionId: s.id,
      eventId: newId(),
      eventType: 'webhook.ping',
    },
  });
}

/** A subscription's deliveries, newest first, at most `limit`. */
export async function listWebhookDeliveries(
  db: PrismaClient,
  projectId: string,
  subscriptionId: string,
  limit: number,
): Promise<WebhookDelivery[]> {
  return db.webhookDelivery.findMany({
    where: { projectId, subscriptionId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
}

/** A claimed delivery with what the worker needs to send it. */
export interface ClaimedWebhookDelivery {
  delivery: WebhookDelivery;
  subscription: Pick<WebhookSubscription, 'id' | 'url' | 'secret' | 'format' | 'enabled'>;
}

/**
 * Claims up to `limit` pending deliveries whose `next_attempt_at` has come, oldest first, by moving
 * their `next_attempt_at` `leaseMs` into the future (a lease): another worker does not take them
 * meanwhile (`FOR UPDATE SKIP LOCKED`), and a worker that dies holding them only delays them by
 * the lease, after which they are due again (at-least-once, the same `webhook-id`).
 */
export async function claimDueWebhookDeliveries(
  db: PrismaClient,
  opts: { limit: number; leaseMs: number },
): Promise<ClaimedWebhookDelivery[]> {
  const ids = await db.$queryRaw<{ id: string }[]>`
    UPDATE "webhook_deliveries" SET "next_attempt_at" = now() + make_interval(secs => ${opts.leaseMs / 1000})
     WHERE "id" IN (SELECT "id" FROM "webhook_deliveries"
                     WHERE "status" = 'pending' AND "next_attempt_at" <= now()
                     ORDER BY "next_attempt_at" LIMIT ${opts.limit} FOR UPDATE SKIP LOCKED)
    RETURNING "id"::text AS "id"`;
  if (ids.length === 0) return [];
  const rows = await db.webhookDelivery.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    include: { subscription: { select: { id: true, url: true, secret: true, format: true, enabled: true } } },
    orderBy: { createdAt: 'asc' },
  });
  return rows.map(({ subscription, ...delivery }) => ({ delivery, subscription }));
}

/** Keeps the body of a delivery's first attempt, so that every retry sends the same bytes. */
export async function saveWebhookPayload(db: PrismaClient, id: string, payload: string): Promise<void> {
  await db.webhookDelivery.updateMany({ where: { id, payload: null }, data: { payload } });
}

/**
 * Records one attempt: `delivered` (a 2xx), `retry` at `nextAttemptAt`, or `failed` (given up).
 * `attempts` counts every attempt; the last status code / error and duration (ms) are kept.
 */
export async function recordWebhookAttempt(
  db: PrismaClient,
  id: string,
  a: {
    outcome: 'delivered' | 'retry' | 'failed';
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    nextAttemptAt?: Date;
  },
): Promise<void> {
  const now = new Date();
  await db.webhookDelivery.update({
    where: { id },
    data: {
      attempts: { increment: 1 },
      status: a.outcome === 'retry' ? 'pending' : a.outcome,
      lastStatusCode: a.statusCode,
      lastError: a.error,
      durationMs: Math.round(a.durationMs),
      deliveredAt: a.outcome === 'delivered' ? now : null,
      ...(a.outcome === 'retry' && a.nextAttemptAt ? { nextAttemptAt: a.nextAttemptAt } : {}),
    },
  });
}

/** What a delivery is about, to build its body: an approval transition with its approval, or a blocking evaluation. */
export type WebhookEventSource =
  | { kind: 'approval'; transition: ApprovalTransition; approval: Approval }
  | { kind: 'evaluation'; evaluation: GuardrailEvaluation }
  | { kind: 'ping' }
  | null;

/** Loads the row a delivery was made for (null when it is gone, e.g. the project's data was deleted). */
export async function webhookEventSource(
  db: PrismaClient,
  d: Pick<WebhookDelivery, 'projectId' | 'eventId' | 'eventType'>,
): Promise<WebhookEventSource> {
  if (d.eventType === 'webhook.ping') return { kind: 'ping' };
  if (d.eventType === 'guard.blocked') {
    const evaluation = await db.guardrailEvaluation.findFirst({
      where: { projectId: d.projectId, id: d.eventId },
    });
    return evaluation ? { kind: 'evaluation', evaluation } : null;
  }
  const transition = await db.approvalTransition.findFirst({
    where: { projectId: d.projectId, id: d.eventId },
    include: { approval: true },
  });
  if (!transition) return null;
  const { approval, ...t } = transition;
  return { kind: 'approval', transition: t, approval };
}

/**
 * Projects with an enabled subscription to `approval.expired`: the worker applies their due
 * timeouts, so that an expiry is notified even when nobody has the inbox open.
 */
export async function projectsSubscribedTo(db: PrismaClient, eventType: WebhookEventType): Promise<string[]> {
  const rows = await db.webhookSubscription.findMany({
    where: { enabled: true, eventTypes: { has: eventType } },
    select: { projectId: true },
    distinct: ['projectId'],
  });
  return rows.map((r) => r.projectId);
}

/**
 * Deletes delivered and failed deliveries created before `before`, at most `limit` a call (so a
 * large backlog is removed in short statements). Pending ones are kept whatever their age.
 * Returns how many were deleted.
 */
export async function pruneWebhookDeliveries(db: PrismaClient, before: Date, limit = 1000): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "webhook_deliveries" WHERE "id" IN (
      SELECT "id" FROM "webhook_deliveries"
       WHERE "created_at" < ${before} AND "status" <> 'pending'
       LIMIT ${limit})`;
}
