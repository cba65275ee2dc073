import { z } from 'zod';
import { Uuid } from './common';
import {
  ApiKeyCreateRequest,
  ApiKeyCreated,
  ApiKeyView,
  AuthSessionResponse,
  LoginRequest,
  MemberAddRequest,
  ProjectView,
  ProjectWriteRequest,
  SwitchProjectRequest,
  UserCreateRequest,
  UserUpdateRequest,
  UserView,
} from './auth';
import { ApprovalInboxItem, ApprovalListQuery } from './approvals-inbox';
import { Page } from './read';
import { json, jsonBody, keyOrCookie, keyOrCookieErrors, problem, rateLimited } from './openapi-helpers';

const csrf = { header: z.object({ 'x-warden-csrf': z.literal('1').optional() }) };

/** `{projectId}`: a project's UUID, or `current` for the caller's current project. */
const projectPath = z.object({
  projectId: z.string().meta({ description: 'The project id (UUID), or `current`' }),
});

const notMember = problem('No such project, or the caller is not a member of it (API key: not its project)');

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
  '/v1/auth/project': {
    post: {
      summary: 'Make another project of the signed-in person current; re-issues the session cookie',
      security: [{ session: [] }],
      requestParams: csrf,
      requestBody: jsonBody(SwitchProjectRequest),
      responses: {
        '200': json(AuthSessionResponse, 'Switched; Set-Cookie: warden_session=…'),
        ...keyOrCookieErrors,
        '404': problem('Not a project of this person'),
      },
    },
  },
  '/v1/projects': {
    get: {
      summary: 'Projects the signed-in person belongs to, with their role in each (session cookie only)',
      security: [{ session: [] }],
      responses: {
        '200': json(z.object({ items: z.array(ProjectView) }), 'Projects, oldest first'),
        ...keyOrCookieErrors,
      },
    },
    post: {
      summary: 'Create a project; the signed-in person becomes its admin (session cookie only)',
      security: [{ session: [] }],
      requestBody: jsonBody(ProjectWriteRequest),
      responses: { '201': json(ProjectView, 'The project'), ...keyOrCookieErrors },
    },
  },
  '/v1/projects/{projectId}': {
    get: {
      summary: "One project (read there); `current` names the caller's current project",
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: { '200': json(ProjectView, 'The project'), ...keyOrCookieErrors, '404': notMember },
    },
    patch: {
      summary: 'Rename a project (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      requestBody: jsonBody(ProjectWriteRequest),
      responses: { '200': json(ProjectView, 'The project'), ...keyOrCookieErrors, '404': notMember },
    },
    delete: {
      summary: 'Delete a project and all its data in one transaction (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: {
        '204': { description: 'Deleted; a person whose current project it was gets a new cookie' },
        ...keyOrCookieErrors,
        '404': notMember,
        '409': problem('The last project of the installation'),
      },
    },
  },
  '/v1/projects/{projectId}/members': {
    get: {
      summary: 'Members of a project with their role there (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: {
        '200': json(z.object({ items: z.array(UserView) }), 'Members'),
        ...keyOrCookieErrors,
        '404': notMember,
      },
    },
    post: {
      summary: 'Add a person by email with a role; a password creates a new account (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      requestBody: jsonBody(MemberAddRequest),
      responses: {
        '201': json(UserView, 'The member'),
        ...keyOrCookieErrors,
        '404': notMember,
        '409': problem('Already a member, or a password for an existing account'),
      },
    },
  },
  '/v1/projects/{projectId}/members/{userId}': {
    patch: {
      summary:
        'Change the role here; name, password, disabled only when the caller administers every project of the person (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath.extend({ userId: z.string() }) },
      requestBody: jsonBody(UserUpdateRequest),
      responses: {
        '200': json(UserView, 'The member'),
        ...keyOrCookieErrors,
        '404': problem('Unknown project or member'),
        '409': problem('No enabled admin would remain'),
      },
    },
    delete: {
      summary: 'Remove a person from the project; the account stays (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath.extend({ userId: z.string() }) },
      responses: {
        '204': { description: 'Removed' },
        ...keyOrCookieErrors,
        '404': problem('Unknown project or member'),
        '409': problem('The last enabled admin'),
      },
    },
  },
  '/v1/projects/{projectId}/api-keys': {
    get: {
      summary: 'API keys of a project, revoked ones included; never a secret (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      responses: {
        '200': json(z.object({ items: z.array(ApiKeyView) }), 'Keys'),
        ...keyOrCookieErrors,
        '404': notMember,
      },
    },
    post: {
      summary: 'Create an API key of a project; the secret is in this answer only (admin there)',
      security: keyOrCookie,
      requestParams: { path: projectPath },
      requestBody: jsonBody(ApiKeyCreateRequest),
      responses: {
        '201': json(ApiKeyCreated, 'The key and its secret'),
        ...keyOrCookieErrors,
        '404': notMember,
      },
    },
  },
  '/v1/projects/{projectId}/api-keys/{keyId}': {
    delete: {
      summary: 'Revoke an API key of a project (admin there); idempotent',
      security: keyOrCookie,
      requestParams: { path: projectPath.extend({ keyId: z.string() }) },
      responses: {
        '204': { description: 'Revoked' },
        ...keyOrCookieErrors,
        '404': problem('Unknown project or key'),
      },
    },
  },
  '/v1/users': {
    get: {
      summary: 'People of the current project with their role there (admin)',
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
