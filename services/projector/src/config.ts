import { z } from 'zod';
import { IntEnv, ListEnv, LlmPricesFileEnv } from '@agent-warden/config';

/**
 * Projector configuration.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `DATABASE_URL` | (required) | PostgreSQL |
 * | `KAFKA_BROKERS` | (required) | comma-separated `host:port` list |
 * | `KAFKA_TOPIC_PREFIX` | (none) | prefix of the physical topic names |
 * | `WARDEN_PROJECTOR_GROUP` | `warden-projector` | Kafka consumer group id |
 * | `WARDEN_PROJECTOR_CONCURRENCY` | 3 | partitions processed at once per instance |
 * | `WARDEN_EVENT_PARTITIONS` | 6 | partitions when the projector creates the topics |
 * | `REDIS_URL` | (none) | Redis of the job queue (BullMQ); without it no `session-ready` job is scheduled |
 * | `WARDEN_QUEUE_PREFIX` | `warden` | prefix of the job queue's Redis keys |
 * | `WARDEN_SESSION_QUIET_MS` | 60000 | a session with no running run is ready after this long without events |
 * | `WARDEN_SESSION_ENDED_DELAY_MS` | 2000 | debounce of the job after `agent.session.ended` |
 * | `WARDEN_LLM_PRICES_FILE` | (none) | JSON price file extending / overriding the default LLM prices (docs/architecture.md#llm-calls); invalid: the start fails |
 * | `PORT` | 7403 | health/ready HTTP port (0 = none) |
 * | `WARDEN_METRICS_PORT` | 9403 | port of `GET /metrics`, Prometheus (0 = none; docs/operations.md "Metrics") |
 * | `LOG_LEVEL` | info | pino level |
 */
/**
 * Readiness settings (docs/architecture.md#runtime-intelligence), shared with the standalone service:
 * `WARDEN_SESSION_QUIET_MS` (ms, default 60 000) and `WARDEN_SESSION_ENDED_DELAY_MS` (ms, default 2000).
 */
export const ReadinessEnv = z.object({
  WARDEN_SESSION_QUIET_MS: IntEnv.min(1).default(60_000),
  WARDEN_SESSION_ENDED_DELAY_MS: IntEnv.min(1).default(2000),
});
export type ReadinessEnv = z.infer<typeof ReadinessEnv>;

export const ProjectorConfig = ReadinessEnv.extend({
  DATABASE_URL: z.string().min(1),
  KAFKA_BROKERS: ListEnv.pipe(z.array(z.string()).min(1)),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  WARDEN_PROJECTOR_GROUP: z.string().min(1).default('warden-projector'),
  WARDEN_PROJECTOR_CONCURRENCY: IntEnv.min(1).max(64).default(3),
  WARDEN_EVENT_PARTITIONS: IntEnv.min(1).default(6),
  REDIS_URL: z.string().min(1).optional(),
  WARDEN_QUEUE_PREFIX: z.string().min(1).default('warden'),
  /** The operator's LLM price rows, read and validated at start (contracts `LlmPriceFile`). */
  WARDEN_LLM_PRICES_FILE: LlmPricesFileEnv.optional(),
  PORT: IntEnv.min(0).max(65535).default(7403),
  WARDEN_METRICS_PORT: IntEnv.min(0).max(65535).default(9403),
  LOG_LEVEL: z.string().default('info'),
});
export type ProjectorConfig = z.infer<typeof ProjectorConfig>;
