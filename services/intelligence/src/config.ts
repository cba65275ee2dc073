import { z } from 'zod';
import { IntEnv } from '@agent-warden/config';

/**
 * Intelligence worker configuration. The LLM narrative and the model evaluator have their own
 * variables, read by `narratorConfigFromEnv` and `evaluatorConfigFromEnv` of
 * `@agent-warden/intelligence` (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `WARDEN_LLM_MODEL`,
 * `WARDEN_LLM_EVALUATOR`, …; see the README).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `DATABASE_URL` | (required) | PostgreSQL |
 * | `REDIS_URL` | (required) | Redis of the job queue (BullMQ) |
 * | `WARDEN_QUEUE_PREFIX` | `warden` | prefix of the job queue's Redis keys (same as the projector's and api's) |
 * | `WARDEN_INTELLIGENCE_CONCURRENCY` | 2 | sessions analysed at once per worker process |
 * | `WARDEN_INTELLIGENCE_ATTEMPTS` | 5 | tries per job before it is kept as failed |
 * | `WARDEN_INTELLIGENCE_BACKOFF_MS` | 2000 | wait before the first retry, doubled each time |
 * | `WARDEN_WEBHOOK_ATTEMPTS` | 10 | tries per webhook delivery before it is kept as failed |
 * | `WARDEN_WEBHOOK_BACKOFF_MS` | 30000 | wait before the first webhook retry, doubled each time (with jitter) |
 * | `WARDEN_WEBHOOK_BACKOFF_MAX_MS` | 3600000 | longest wait between two webhook attempts |
 * | `WARDEN_WEBHOOK_TIMEOUT_MS` | 10000 | time limit of one webhook attempt |
 * | `WARDEN_WEBHOOK_POLL_MS` | 1000 | how often the webhook worker looks for due deliveries |
 * | `WARDEN_WEBHOOK_LOG_DAYS` | 30 | delivered and failed webhook deliveries older than this are deleted |
 * | `WARDEN_PUBLIC_URL` | none | dashboard base URL, for the links in webhook bodies |
 * | `PORT` | 7404 | health/ready HTTP port (0 = none) |
 * | `WARDEN_METRICS_PORT` | 9404 | port of `GET /metrics`, Prometheus (0 = none; docs/operations.md "Metrics") |
 * | `LOG_LEVEL` | info | pino level |
 */
export const WorkerEnv = z.object({
  WARDEN_INTELLIGENCE_CONCURRENCY: IntEnv.min(1).max(256).default(2),
  WARDEN_INTELLIGENCE_ATTEMPTS: IntEnv.min(1).max(100).default(5),
  WARDEN_INTELLIGENCE_BACKOFF_MS: IntEnv.min(0).default(2000),
  WARDEN_WEBHOOK_ATTEMPTS: IntEnv.min(1).max(100).default(10),
  WARDEN_WEBHOOK_BACKOFF_MS: IntEnv.min(0).default(30_000),
  WARDEN_WEBHOOK_BACKOFF_MAX_MS: IntEnv.min(0).default(3_600_000),
  WARDEN_WEBHOOK_TIMEOUT_MS: IntEnv.min(1).default(10_000),
  WARDEN_WEBHOOK_POLL_MS: IntEnv.min(10).default(1000),
  WARDEN_WEBHOOK_LOG_DAYS: IntEnv.min(1).default(30),
  WARDEN_PUBLIC_URL: z.url().optional(),
});
export type WorkerEnv = z.infer<typeof WorkerEnv>;

export const IntelligenceConfig = WorkerEnv.extend({
  DATABASE_URL: z.string().min(1),
  REDIS_URL: z.string().min(1),
  WARDEN_QUEUE_PREFIX: z.string().min(1).default('warden'),
  PORT: IntEnv.min(0).max(65535).default(7404),
  WARDEN_METRICS_PORT: IntEnv.min(0).max(65535).default(9404),
  LOG_LEVEL: z.string().default('info'),
});
export type IntelligenceConfig = z.infer<typeof IntelligenceConfig>;
