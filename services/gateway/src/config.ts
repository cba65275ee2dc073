import { z } from 'zod';
import { INGEST_LIMITS } from '@agent-warden/contracts';
import { IntEnv, ListEnv } from '@agent-warden/config';

/**
 * Gateway configuration, parsed once at start (STYLE.md "Start-up").
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | 7401 | HTTP port |
 * | `DATABASE_URL` | (required) | PostgreSQL |
 * | `KAFKA_BROKERS` | (required) | comma-separated `host:port` list |
 * | `KAFKA_TOPIC_PREFIX` | (none) | prefix of the physical topic names |
 * | `WARDEN_EVENT_PARTITIONS` | 6 | partitions when the gateway creates the event topic |
 * | `WARDEN_MAX_BODY_BYTES` | 5 MiB | request body limit (413) |
 * | `WARDEN_MAX_EVENTS_PER_BATCH` | 500 | events per request (413) |
 * | `WARDEN_MAX_EVENT_BYTES` | 256 KiB | bytes per event (rejected `event_too_large`) |
 * | `WARDEN_APPROVAL_TIMEOUT_SECONDS` | 300 | approval deadline when the policy sets none |
 * | `WARDEN_POLICY_REFRESH_MS` | 500 | how often the policy fingerprint is checked (a change reaches every gateway within a second) |
 * | `LOG_LEVEL` | info | pino level |
 */
export const GatewayConfig = z.object({
  PORT: IntEnv.min(0).max(65535).default(7401),
  DATABASE_URL: z.string().min(1),
  KAFKA_BROKERS: ListEnv.pipe(z.array(z.string()).min(1)),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  WARDEN_EVENT_PARTITIONS: IntEnv.min(1).default(6),
  WARDEN_MAX_BODY_BYTES: IntEnv.min(1024).default(INGEST_LIMITS.maxBodyBytes),
  WARDEN_MAX_EVENTS_PER_BATCH: IntEnv.min(1).default(INGEST_LIMITS.maxEventsPerBatch),
  WARDEN_MAX_EVENT_BYTES: IntEnv.min(256).default(INGEST_LIMITS.maxEventBytes),
  WARDEN_APPROVAL_TIMEOUT_SECONDS: IntEnv.min(1).default(300),
  WARDEN_POLICY_REFRESH_MS: IntEnv.min(100).default(500),
  LOG_LEVEL: z.string().default('info'),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** Limits of the ingest endpoint (bytes / counts). */
export interface IngestLimits {
  maxBodyBytes: number;
  maxEventsPerBatch: number;
  maxEventBytes: number;
}

/** The ingest limits from a gateway or standalone configuration. */
export function ingestLimits(c: {
  WARDEN_MAX_BODY_BYTES: number;
  WARDEN_MAX_EVENTS_PER_BATCH: number;
  WARDEN_MAX_EVENT_BYTES: number;
}): IngestLimits {
  return {
    maxBodyBytes: c.WARDEN_MAX_BODY_BYTES,
    maxEventsPerBatch: c.WARDEN_MAX_EVENTS_PER_BATCH,
    maxEventBytes: c.WARDEN_MAX_EVENT_BYTES,
  };
}
