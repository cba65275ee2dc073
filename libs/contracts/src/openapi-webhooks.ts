import { z } from 'zod';
import { Uuid } from './common';
import { json, jsonBody, keyOrCookie, keyOrCookieErrors, problem } from './openapi-helpers';
import {
  WebhookCreateRequest,
  WebhookDeliveriesQuery,
  WebhookDeliveryView,
  WebhookSubscriptionCreated,
  WebhookSubscriptionView,
  WebhookUpdateRequest,
} from './webhooks';

const webhookParam = { path: z.object({ webhookId: Uuid }) };
const unknown = { '404': problem('No such subscription in this project') };

/**
 * Webhook subscriptions of the caller's current project (docs/operations.md#notifications,
 * services/api README). Every route needs admin.
 */
export const webhookPaths = {
  '/v1/webhooks': {
    get: {
      summary: "The project's webhook subscriptions, oldest first, without their secrets (admin)",
      security: keyOrCookie,
      responses: {
        '200': json(z.object({ items: z.array(WebhookSubscriptionView) }), 'Subscriptions'),
        ...keyOrCookieErrors,
      },
    },
    post: {
      summary: 'Subscribe a URL to approval and block notifications (admin); answers the signing secret once',
      security: keyOrCookie,
      requestBody: jsonBody(WebhookCreateRequest),
      responses: {
        '201': json(
          WebhookSubscriptionCreated,
          'The subscription with its secret (`Cache-Control: no-store`)',
        ),
        ...keyOrCookieErrors,
      },
    },
  },
  '/v1/webhooks/{webhookId}': {
    patch: {
      summary: "Change a subscription's URL, event types, format or enabled flag (admin)",
      security: keyOrCookie,
      requestParams: webhookParam,
      requestBody: jsonBody(WebhookUpdateRequest),
      responses: {
        '200': json(WebhookSubscriptionView, 'The subscription'),
        ...keyOrCookieErrors,
        ...unknown,
      },
    },
    delete: {
      summary: 'Delete a subscription and its delivery log (admin)',
      security: keyOrCookie,
      requestParams: webhookParam,
      responses: { '204': { description: 'Deleted' }, ...keyOrCookieErrors, ...unknown },
    },
  },
  '/v1/webhooks/{webhookId}/test': {
    post: {
      summary: 'Queue a `webhook.ping` delivery to the subscription (admin); see its delivery log',
      security: keyOrCookie,
      requestParams: webhookParam,
      responses: {
        '202': json(WebhookDeliveryView, 'The queued delivery'),
        ...keyOrCookieErrors,
        ...unknown,
      },
    },
  },
  '/v1/webhooks/{webhookId}/deliveries': {
    get: {
      summary: "A subscription's delivery log, newest first (admin)",
      security: keyOrCookie,
      requestParams: { ...webhookParam, query: WebhookDeliveriesQuery },
      responses: {
        '200': json(z.object({ items: z.array(WebhookDeliveryView) }), 'Deliveries'),
        ...keyOrCookieErrors,
        ...unknown,
      },
    },
  },
};
