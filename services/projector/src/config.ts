import { z } from 'zod';
import { IntEnv, ListEnv } from '@agent-warden/config';

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
 * | `PORT` | 7403 | health/ready HTTP port (0 = none) |
 * | `LOG_LEVEL` | info | pino level |
 */
export const ProjectorConfig = z.object({
  DATABASE_URL: z.string().min(1),
  KAFKA_BROKERS: ListEnv.pipe(z.array(z.string()).min(1)),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  WARDEN_PROJECTOR_GROUP: z.string().min(1).default('warden-projector'),
  WARDEN_PROJECTOR_CONCURRENCY: IntEnv.min(1).max(64).default(3),
  WARDEN_EVENT_PARTITIONS: IntEnv.min(1).default(6),
  PORT: IntEnv.min(0).max(65535).default(7403),
  LOG_LEVEL: z.string().default('info'),
});
export type ProjectorConfig = z.infer<typeof ProjectorConfig>;
