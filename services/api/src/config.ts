import { z } from 'zod';
import { BoolEnv, IntEnv, ListEnv } from '@agent-warden/config';
import { DashboardEnv } from './routes/static';

/**
 * API configuration.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | 7402 | HTTP port |
 * | `DATABASE_URL` | (required) | PostgreSQL |
 * | `LOG_LEVEL` | info | pino level |
 * | `REDIS_URL` | — | Redis of the job queue (BullMQ); needed to regenerate intelligence on demand |
 * | `KAFKA_BROKERS` | — | comma-separated `host:port`; when set, each policy change is announced on `policy-changes` so gateways reload at once (without it they still apply it on their next poll) |
 * | `KAFKA_TOPIC_PREFIX` | (none) | prefix of the physical topic names |
 * | `WARDEN_QUEUE_PREFIX` | `warden` | prefix of the job queue's Redis keys |
 * | `WARDEN_INIT_API_KEY` | — | when set, ensured at start as an all-scope key of the first project |
 * | `WARDEN_DATA_DIR` | `./.warden` | where a first start writes the secrets it generated (`first-start-secrets.env`, mode 0600) |
 * | `WARDEN_DASHBOARD_DIR` | services/dashboard/dist | dashboard build served at `/` |
 * | `WARDEN_JWT_SECRET` | (required) | HS256 key of people's session cookie, ≥ 32 characters (`openssl rand -base64 48`) |
 * | `WARDEN_COOKIE_SECURE` | auto | `Secure` on the session cookie: `auto` (when the request came over https), `true`, `false` |
 * | `WARDEN_RETENTION_INTERVAL_MS` | 3600000 | time between two passes of the retention job (docs/operations.md#retention-and-deletion); 0 turns the job off in this process |
 * | `WARDEN_INIT_ADMIN_EMAIL` / `WARDEN_INIT_ADMIN_PASSWORD` | — | first admin, ensured at start; without them a project with no user gets `admin@localhost` with a random password, written to `<WARDEN_DATA_DIR>/first-start-secrets.env` |
 */
/** Sign-in settings shared by the api and the standalone service (the secret is optional there). */
/** `auto` (or unset): `Secure` when the request came over https. */
export const CookieSecureEnv = z.union([z.literal('auto'), BoolEnv]).optional();
export const InitAdminEnv = z.object({
  WARDEN_INIT_ADMIN_EMAIL: z.string().trim().toLowerCase().pipe(z.email()).optional(),
  WARDEN_INIT_ADMIN_PASSWORD: z.string().min(10).max(256).optional(),
});
const JwtSecret = z.string().min(32, 'WARDEN_JWT_SECRET must be at least 32 characters');
/** Sign-in variables of the standalone service: the secret is optional (made and kept in the data dir). */
export const SignInEnv = InitAdminEnv.extend({
  WARDEN_JWT_SECRET: JwtSecret.optional(),
  WARDEN_COOKIE_SECURE: CookieSecureEnv,
});
const PeopleEnv = SignInEnv.extend({ WARDEN_JWT_SECRET: JwtSecret });

export const ApiConfig = z.object({
  PORT: IntEnv.min(0).max(65535).default(7402),
  DATABASE_URL: z.string().min(1),
  LOG_LEVEL: z.string().default('info'),
  WARDEN_INIT_API_KEY: z.string().min(20).optional(),
  WARDEN_DATA_DIR: z.string().min(1).optional(),
  ...DashboardEnv.shape,
  REDIS_URL: z.string().min(1).optional(),
  KAFKA_BROKERS: ListEnv.pipe(z.array(z.string()).min(1)).optional(),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  WARDEN_QUEUE_PREFIX: z.string().min(1).default('warden'),
  WARDEN_RETENTION_INTERVAL_MS: IntEnv.min(0).optional(),
  ...PeopleEnv.shape,
});
export type ApiConfig = z.infer<typeof ApiConfig>;

/** Both init-admin variables or neither. */
export function initAdminOf(
  c: z.infer<typeof InitAdminEnv>,
): { email: string; password: string } | undefined {
  if (!c.WARDEN_INIT_ADMIN_EMAIL && !c.WARDEN_INIT_ADMIN_PASSWORD) return undefined;
  if (!c.WARDEN_INIT_ADMIN_EMAIL || !c.WARDEN_INIT_ADMIN_PASSWORD)
    throw new Error('set both WARDEN_INIT_ADMIN_EMAIL and WARDEN_INIT_ADMIN_PASSWORD, or neither');
  return { email: c.WARDEN_INIT_ADMIN_EMAIL, password: c.WARDEN_INIT_ADMIN_PASSWORD };
}
