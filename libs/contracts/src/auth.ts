import { z } from 'zod';
import { Timestamp } from './common';

/** Roles of people (docs/architecture.md#auth): `viewer` reads, `approver` also decides approvals, `admin` does everything. */
export const UserRole = z.enum(['viewer', 'approver', 'admin']);
export type UserRole = z.infer<typeof UserRole>;

/** API key scopes (docs/architecture.md#auth): `admin` implies the others. */
export const ApiKeyScope = z.enum(['ingest', 'read', 'admin']);
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

/** An email address as stored: trimmed and lower-cased. */
export const Email = z
  .string()
  .trim()
  .max(320)
  .pipe(z.email())
  .transform((s) => s.toLowerCase());

/** A new password: 10 to 256 characters (NIST SP 800-63B: length, not composition rules). */
export const Password = z.string().min(10).max(256);

/** `POST /v1/auth/login` body. The password is only length-checked (old passwords may be shorter). */
export const LoginRequest = z
  .object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(256) })
  .meta({ id: 'LoginRequest' });
export type LoginRequest = z.infer<typeof LoginRequest>;

/**
 * The signed-in person, as `POST /v1/auth/login` and `GET /v1/auth/me` return it: `projectId` is
 * their current project and `role` their role there; both null when they belong to no project.
 */
export const SessionUser = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: UserRole.nullable(),
    projectId: z.string().nullable(),
  })
  .meta({ id: 'SessionUser' });
export type SessionUser = z.infer<typeof SessionUser>;

/**
 * A project as `GET /v1/projects` lists it: `role` is the caller's role in it (null for an API key,
 * which acts by its scopes).
 */
export const ProjectView = z
  .object({ id: z.string(), name: z.string(), role: UserRole.nullable(), createdAt: Timestamp })
  .meta({ id: 'Project' });
export type ProjectView = z.infer<typeof ProjectView>;

/**
 * `POST /v1/auth/login` (200, with `Set-Cookie: warden_session=…`), `GET /v1/auth/me` and
 * `POST /v1/auth/project` response: the person and every project they belong to (the switcher).
 */
export const AuthSessionResponse = z
  .object({ user: SessionUser, projects: z.array(ProjectView) })
  .meta({ id: 'AuthSession' });
export type AuthSessionResponse = z.infer<typeof AuthSessionResponse>;

/** `POST /v1/auth/project` body: the project to make current (the person must be a member). */
export const SwitchProjectRequest = z
  .object({ projectId: z.uuid() })
  .strict()
  .meta({ id: 'SwitchProjectRequest' });
export type SwitchProjectRequest = z.infer<typeof SwitchProjectRequest>;

/** A project's name: 1 to 100 characters, trimmed. */
export const ProjectName = z.string().trim().min(1).max(100);

/** `POST /v1/projects` and `PATCH /v1/projects/{projectId}` body. */
export const ProjectWriteRequest = z
  .object({ name: ProjectName })
  .strict()
  .meta({ id: 'ProjectWriteRequest' });
export type ProjectWriteRequest = z.infer<typeof ProjectWriteRequest>;

/**
 * `POST /v1/projects/{projectId}/members` body (admin): adds the person with this email; without
 * an account yet, `password` (and `name`) create one. A password for an existing account is refused
 * (409): an admin of one project never sets the password of someone else's account.
 */
export const MemberAddRequest = z
  .object({
    email: Email,
    role: UserRole,
    password: Password.optional(),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .meta({ id: 'MemberAddRequest' });
export type MemberAddRequest = z.infer<typeof MemberAddRequest>;

/** A person of a project as `GET /v1/users` and `GET /v1/projects/{projectId}/members` list them (never the password hash). */
export const UserView = SessionUser.extend({
  role: UserRole,
  projectId: z.string(),
  createdAt: Timestamp,
  lastLoginAt: Timestamp.nullable(),
  /** Set when disabled: the person can no longer sign in and their session cookie stops working. */
  disabledAt: Timestamp.nullable(),
}).meta({ id: 'User' });
export type UserView = z.infer<typeof UserView>;

/** `POST /v1/users` body (admin). */
export const UserCreateRequest = z
  .object({
    email: Email,
    password: Password,
    role: UserRole,
    name: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .meta({ id: 'UserCreateRequest' });
export type UserCreateRequest = z.infer<typeof UserCreateRequest>;

/** `PATCH /v1/users/{id}` body (admin): change the role, disable / enable, rename or set a new password. */
export const UserUpdateRequest = z
  .object({
    role: UserRole.optional(),
    disabled: z.boolean().optional(),
    name: z.string().trim().min(1).max(200).nullable().optional(),
    password: Password.optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'nothing to change' })
  .meta({ id: 'UserUpdateRequest', override: { minProperties: 1 } });
export type UserUpdateRequest = z.infer<typeof UserUpdateRequest>;

/** An API key as `GET /v1/api-keys` lists it: never the secret, only its first 10 characters. */
export const ApiKeyView = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(ApiKeyScope),
    createdAt: Timestamp,
    revokedAt: Timestamp.nullable(),
    lastUsedAt: Timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof ApiKeyView>;

/** `POST /v1/api-keys` body (admin). */
export const ApiKeyCreateRequest = z
  .object({
    name: z.string().trim().min(1).max(200),
    scopes: z
      .array(ApiKeyScope)
      .min(1)
      .transform((s) => [...new Set(s)]),
  })
  .strict()
  .meta({ id: 'ApiKeyCreateRequest' });
export type ApiKeyCreateRequest = z.infer<typeof ApiKeyCreateRequest>;

/** `POST /v1/api-keys` response (201): the key with its `secret`, shown this once and never again. */
export const ApiKeyCreated = ApiKeyView.extend({ secret: z.string() }).meta({ id: 'ApiKeyCreated' });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

/** Name of the session cookie set by `POST /v1/auth/login` (an HS256 JWT, httpOnly, SameSite=Lax). */
export const SESSION_COOKIE = 'warden_session';

/**
 * Header a cookie-authenticated request that changes state must carry (`X-Warden-CSRF: 1`): a
 * cross-site page cannot send a custom header without a CORS preflight, which the API never grants.
 */
export const CSRF_HEADER = 'x-warden-csrf';
