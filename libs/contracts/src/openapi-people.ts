import { z } from 'zod';
import { Uuid } from './common';
import {
  ApiKeyCreateRequest,
  ApiKeyCreated,
  ApiKeyView,
  AuthSessionResponse,
  LoginRequest,
  UserCreateRequest,
  UserUpdateRequest,
  UserView,
} from './auth';
import { ApprovalInboxItem, ApprovalListQuery } from './approvals-inbox';
import { Page } from './read';
import { json, jsonBody, keyOrCookie, keyOrCookieErrors, problem, rateLimited } from './openapi-helpers';

const csrf = { header: z.object({ 'x-warden-csrf': z.literal('1').optional() }) };

/**
 * Sign-in, people, API keys and the approvals inbox (services/api README). Every route takes a
 * bearer API key or the `warden_session` cookie; cookie requests that change state must send
 * `X-Warden-CSRF: 1`.
 */
export const peoplePaths = {
  '/v1/auth/login': {
    post: {
      summary: 'Sign in with email and password; sets the warden_session cookie (12 h)',
      security: [],
      requestParams: csrf,
      requestBody: jsonBody(LoginRequest),
      responses: {
        '200': json(AuthSessionResponse, 'Signed in; Set-Cookie: warden_session=… (HttpOnly, SameSite=Lax)'),
        ...keyOrCookieErrors,
        '401': problem('Wrong email or password (the same answer for an unknown email)'),
        ...rateLimited(
          'Too many failed sign-ins for this address and email (docs/decisions.md "Sign-in throttling")',
        ),
      },
    },
  },
  '/v1/auth/logout': {
    post: {
      summary: 'Sign out: clears the session cookie',
      security: [],
      requestParams: csrf,
      responses: { '204': { description: 'Cookie cleared' }, '403': keyOrCookieErrors['403'] },
    },
  },
  '/v1/auth/me': {
    get: {
      summary: 'The signed-in person (session cookie only)',
      security: [{ session: [] }],
      responses: { '200': json(AuthSessionResponse, 'The person'), '401': problem('Not signed in') },
    },
  },
  '/v1/users': {
    get: {
      summary: 'People of the project (admin)',
      security: keyOrCookie,
      responses: { '200': json(z.object({ items: z.array(UserView) }), 'People'), ...keyOrCookieErrors },
    },
    post: {
      summary: 'Add a person with a role (admin)',
      security: keyOrCookie,
      requestBody: jsonBody(UserCreateRequest),
      responses: {
        '201': json(UserView, 'The person'),
        ...keyOrCookieErrors,
        '409': problem('Email already taken'),
      },
    },
  },
  '/v1/users/{userId}': {
    patch: {
      summary: 'Change role, disable / enable, rename or set a password (admin)',
      security: keyOrCookie,
      requestParams: { path: z.object({ userId: Uuid }) },
      requestBody: jsonBody(UserUpdateRequest),
      responses: {
        '200': json(UserView, 'The person'),
        ...keyOrCookieErrors,
        '404': problem('Unknown user'),
        '409': problem('No enabled admin would remain'),
      },
    },
  },
  '/v1/api-keys': {
    get: {
      summary: 'API keys of the project, revoked ones included; never a secret (admin)',
      security: keyOrCookie,
      responses: { '200': json(z.object({ items: z.array(ApiKeyView) }), 'Keys'), ...keyOrCookieErrors },
    },
    post: {
      summary: 'Create an API key; the secret is in this answer only (admin)',
      security: keyOrCookie,
      requestBody: jsonBody(ApiKeyCreateRequest),
      responses: { '201': json(ApiKeyCreated, 'The key and its secret'), ...keyOrCookieErrors },
    },
  },
  '/v1/api-keys/{keyId}': {
    delete: {
      summary: 'Revoke an API key (admin); idempotent',
      security: keyOrCookie,
      requestParams: { path: z.object({ keyId: Uuid }) },
      responses: { '204': { description: 'Revoked' }, ...keyOrCookieErrors, '404': problem('Unknown key') },
    },
  },
  '/v1/approvals': {
    get: {
      summary: 'The approvals inbox: pending (newest first) or decided (latest decision first) (read)',
      security: keyOrCookie,
      requestParams: { query: ApprovalListQuery },
      responses: {
        '200': json(Page(ApprovalInboxItem, 'ApprovalInboxPage'), 'A page of approvals'),
        ...keyOrCookieErrors,
      },
    },
  },
  '/v1/approvals/stream': {
    get: {
      summary:
        'Server-sent events: `snapshot` (pending list) at connect, then `approval` on every change (read)',
      description:
        'Event `snapshot` carries ApprovalStreamSnapshot `{ items }`; each `approval` event carries ApprovalStreamEvent `{ transition, approval }` with `id:` = the transition id. A `: ping` comment every 15 s.',
      security: keyOrCookie,
      responses: {
        '200': { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } },
        ...keyOrCookieErrors,
      },
    },
  },
};
