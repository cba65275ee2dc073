import { z } from 'zod';
import { IntEnv } from '@agent-warden/config';
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
 * | `WARDEN_QUEUE_PREFIX` | `warden` | prefix of the job queue's Redis keys |
 * | `WARDEN_INIT_API_KEY` | — | when set, ensured at start as an all-scope key of the first project |
 * | `WARDEN_DASHBOARD_DIR` | services/dashboard/dist | dashboard build served at `/` |
 */
export const ApiConfig = z.object({
  PORT: IntEnv.min(0).max(65535).default(7402),
  DATABASE_URL: z.string().min(1),
  LOG_LEVEL: z.string().default('info'),
  WARDEN_INIT_API_KEY: z.string().min(20).optional(),
  ...DashboardEnv.shape,
  REDIS_URL: z.string().min(1).optional(),
  WARDEN_QUEUE_PREFIX: z.string().min(1).default('warden'),
});
export type ApiConfig = z.infer<typeof ApiConfig>;
