import path from 'node:path';
import { z } from 'zod';
import { INGEST_LIMITS } from '@agent-warden/contracts';
import { IntEnv, LlmPricesFileEnv } from '@agent-warden/config';
import { DashboardEnv, SignInEnv } from '@agent-warden/api';
import { WorkerEnv } from '@agent-warden/intelligence-service';
import { ReadinessEnv } from '@agent-warden/projector';

/**
 * Standalone configuration (`npm start`): every service in one process.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | 7400 | HTTP port of the whole service |
 * | `HOST` | 127.0.0.1 | interface to bind (`0.0.0.0` to expose it) |
 * | `WARDEN_DATA_DIR` | `./.warden` | where the embedded PostgreSQL keeps its data |
 * | `DATABASE_URL` | — | use this PostgreSQL instead of the embedded one |
 * | `WARDEN_INIT_API_KEY` | — | API key (all scopes) ensured at start; else one is generated at first start and printed once |
 * | `WARDEN_MAX_BODY_BYTES` / `WARDEN_MAX_EVENTS_PER_BATCH` / `WARDEN_MAX_EVENT_BYTES` | 5 MiB / 500 / 256 KiB | ingest limits |
 * | `WARDEN_APPROVAL_TIMEOUT_SECONDS` | 300 | approval deadline when the policy sets none |
 * | `WARDEN_DASHBOARD_DIR` | services/dashboard/dist | dashboard build served at `/` |
 * | `WARDEN_SESSION_QUIET_MS` / `WARDEN_SESSION_ENDED_DELAY_MS` | 60000 / 2000 | session readiness (services/projector README) |
 * | `WARDEN_INTELLIGENCE_CONCURRENCY` / `_ATTEMPTS` / `_BACKOFF_MS` | 2 / 5 / 2000 | intelligence worker (services/intelligence README) |
 * | `WARDEN_LLM_PRICES_FILE` | — | JSON price file extending / overriding the default LLM prices (docs/architecture.md#llm-calls); invalid: the start fails |
 * | `WARDEN_WEBHOOK_*`, `WARDEN_PUBLIC_URL` | see services/intelligence README | webhook worker (docs/operations.md#notifications) |
 * | `WARDEN_JWT_SECRET` | made once in `<WARDEN_DATA_DIR>/jwt-secret` (0600) | HS256 key of people's session cookie |
 * | `WARDEN_COOKIE_SECURE` / `WARDEN_INIT_ADMIN_EMAIL` / `WARDEN_INIT_ADMIN_PASSWORD` | auto / — / — | as in services/api |
 * | `LOG_LEVEL` | info | pino level |
 */
export const StandaloneConfig = z.object({
  PORT: IntEnv.min(0).max(65535).default(7400),
  HOST: z.string().default('127.0.0.1'),
  WARDEN_DATA_DIR: z
    .string()
    .default('.warden')
    .transform((p) => path.resolve(p)),
  DATABASE_URL: z.string().min(1).optional(),
  WARDEN_INIT_API_KEY: z.string().min(20).optional(),
  WARDEN_MAX_BODY_BYTES: IntEnv.min(1024).default(INGEST_LIMITS.maxBodyBytes),
  WARDEN_MAX_EVENTS_PER_BATCH: IntEnv.min(1).default(INGEST_LIMITS.maxEventsPerBatch),
  WARDEN_MAX_EVENT_BYTES: IntEnv.min(256).default(INGEST_LIMITS.maxEventBytes),
  WARDEN_APPROVAL_TIMEOUT_SECONDS: IntEnv.min(1).default(300),
  /** The operator's LLM price rows, read and validated at start (contracts `LlmPriceFile`). */
  WARDEN_LLM_PRICES_FILE: LlmPricesFileEnv.optional(),
  ...DashboardEnv.shape,
  ...SignInEnv.shape,
  LOG_LEVEL: z.string().default('info'),
  ...ReadinessEnv.shape,
  ...WorkerEnv.shape,
});
export type StandaloneConfig = z.infer<typeof StandaloneConfig>;
