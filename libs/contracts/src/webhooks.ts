import { z } from 'zod';
import { Timestamp, Uuid } from './common';

/**
 * Webhook notifications (docs/operations.md#notifications): what a project subscribes to, the
 * API's bodies, and the JSON body a receiver gets. Delivery follows Standard Webhooks
 * (https://www.standardwebhooks.com/, docs/decisions.md "Webhooks follow Standard Webhooks").
 */

/**
 * Events a subscription can ask for: an approval was requested (a call is held), decided (by a
 * person or key: approved, denied, cancelled), expired (its deadline passed: `expired`, or
 * `approved` by `system:timeout` when the policy says so); a guard check's effective decision was
 * `block`.
 */
export const WEBHOOK_EVENT_TYPES = [
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'guard.blocked',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** The test event of `POST /v1/webhooks/{id}/test`: sent whatever the subscription's event types. */
export const WEBHOOK_PING = 'webhook.ping';

/** Body format: `json` ({@link WebhookPayload}) or `slack` (a Slack incoming-webhook message: `text` + `blocks`). */
export const WebhookFormat = z.enum(['json', 'slack']);
export type WebhookFormat = z.infer<typeof WebhookFormat>;

/** An http(s) URL of at most 2,048 characters. */
export const WebhookUrl = z
  .string()
  .trim()
  .max(2048)
  .regex(/^https?:\/\//i, 'must be an http(s) URL')
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }));

const EventTypes = z.array(WebhookEventType).min(1).max(WEBHOOK_EVENT_TYPES.length);

/** `POST /v1/webhooks` body. */
export const WebhookCreateRequest = z
  .object({
    url: WebhookUrl,
    eventTypes: EventTypes,
    format: WebhookFormat.default('json'),
    enabled: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'WebhookCreateRequest' });
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>;

/** `PATCH /v1/webhooks/{id}` body: the fields to change (at least one). The secret cannot be changed. */
export const WebhookUpdateRequest = z
  .object({
    url: WebhookUrl.optional(),
    eventTypes: EventTypes.optional(),
    format: WebhookFormat.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to change' })
  .meta({ id: 'WebhookUpdateRequest' });
export type WebhookUpdateRequest = z.infer<typeof WebhookUpdateRequest>;

/** A subscription as the API reads it: never its secret. */
export const WebhookSubscriptionView = z
  .object({
    id: Uuid,
    url: z.string(),
    eventTypes: z.array(WebhookEventType),
    format: WebhookFormat,
    enabled: z.boolean(),
    createdBy: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'WebhookSubscription' });
export type WebhookSubscriptionView = z.infer<typeof WebhookSubscriptionView>;

/** `POST /v1/webhooks` answer: the subscription and, this once, its signing secret (`whsec_…`). */
export const WebhookSubscriptionCreated = WebhookSubscriptionView.extend({
  secret: z.string().meta({ description: 'Signing secret, `whsec_<base64>`; shown only now' }),
}).meta({ id: 'WebhookSubscriptionCreated' });
export type WebhookSubscriptionCreated = z.infer<typeof WebhookSubscriptionCreated>;

/** Delivery states: `pending` (next attempt at `nextAttemptAt`), `delivered` (a 2xx), `failed` (gave up). */
export const WebhookDeliveryStatus = z.enum(['pending', 'delivered', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** One row of a subscription's delivery log. `id` is the `webhook-id` header, the same on every attempt. */
export const WebhookDeliveryView = z
  .object({
    id: Uuid,
    subscriptionId: Uuid,
    eventId: Uuid,
    eventType: z.string(),
    status: WebhookDeliveryStatus,
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    durationMs: z.number().int().nullable().meta({ description: 'Duration of the last attempt (ms)' }),
    nextAttemptAt: Timestamp.nullable().meta({ description: 'null once delivered or failed' }),
    deliveredAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryView = z.infer<typeof WebhookDeliveryView>;

/** `GET /v1/webhooks/{id}/deliveries` query. */
export const WebhookDeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/**
 * The `json` body a receiver gets (Standard Webhooks' recommended shape `{ type, timestamp, data }`):
 * `data.approval` for approval events, `data.evaluation` for `guard.blocked`, `data.url` the
 * dashboard page to open. Tool arguments are left out: a notification may go to a third party
 * (Slack); the dashboard shows them to those allowed to see them.
 */
export interface WebhookPayload {
  type: WebhookEventType | typeof WEBHOOK_PING;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: {
    projectId: string;
    /** Dashboard link (`WARDEN_PUBLIC_URL` + path); null when no public URL is configured. */
    url: string | null;
    approval?: {
      id: string;
      status: string;
      fromStatus: string | null;
      actor: string;
      comment: string | null;
      toolName: string | null;
      agentId: string;
      sessionId: string | null;
      policyId: string | null;
      expiresAt: string;
      decidedAt: string | null;
    };
    evaluation?: {
      id: string;
      toolName: string | null;
      agentId: string;
      sessionId: string | null;
      policyDecision: string;
      effectiveDecision: string;
      matchedGuardrails: unknown;
      evaluatedAt: string;
    };
    subscriptionId?: string;
  };
}
