import { z } from 'zod';
import { INGEST_LIMITS } from '@agent-warden/contracts';
import { BoolEnv, IntEnv, ListEnv } from '@agent-warden/config';

/** Defaults of the evaluation recorder's settings (records, ms). */
export const RECORDER_DEFAULTS = {
  WARDEN_EVALUATION_BUFFER_MAX: 10_000,
  WARDEN_EVALUATION_BUFFER_MAX_BYTES: 64 * 1024 * 1024,
  WARDEN_EVALUATION_FLUSH_MS: 20,
  WARDEN_EVALUATION_BATCH_MAX: 500,
} as const;

/**
 * Gateway configuration, parsed once at start (docs/conventions.md#start-up-and-shutdown).
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
 * | `WARDEN_POLICY_HINTS` | true | follow the api's `policy-changes` hints and reload at once (the poll above stays the guarantee) |
 * | `WARDEN_EVALUATION_BUFFER_MAX` | 10000 | evaluation records held in memory at most (published or awaiting the log); past it `POST /v1/guardrails/evaluate` answers 503 `event_log_unavailable` |
 * | `WARDEN_EVALUATION_BUFFER_MAX_BYTES` | 64 MiB | bytes of evaluation records (request body sizes) held at most; past it 503 as above |
 * | `WARDEN_EVALUATION_FLUSH_MS` | 20 | longest an evaluation record waits before its batch is published, ms (fewer, larger produce requests: less CPU per record) |
 * | `WARDEN_EVALUATION_BATCH_MAX` | 500 | evaluation records per publish at most (a full batch is published at once) |
 * | `LOG_LEVEL` | info | pino level |
 */
export const GatewayConfig = z
  .object({
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
    WARDEN_POLICY_HINTS: BoolEnv.default(true),
    WARDEN_EVALUATION_BUFFER_MAX: IntEnv.min(1).default(RECORDER_DEFAULTS.WARDEN_EVALUATION_BUFFER_MAX),
    WARDEN_EVALUATION_BUFFER_MAX_BYTES: IntEnv.min(1024).default(
      RECORDER_DEFAULTS.WARDEN_EVALUATION_BUFFER_MAX_BYTES,
    ),
    WARDEN_EVALUATION_FLUSH_MS: IntEnv.min(0)
      .max(60_000)
      .default(RECORDER_DEFAULTS.WARDEN_EVALUATION_FLUSH_MS),
    WARDEN_EVALUATION_BATCH_MAX: IntEnv.min(1).default(RECORDER_DEFAULTS.WARDEN_EVALUATION_BATCH_MAX),
    LOG_LEVEL: z.string().default('info'),
  })
  .refine((c) => c.WARDEN_EVALUATION_BUFFER_MAX >= c.WARDEN_EVALUATION_BATCH_MAX, {
    message: 'WARDEN_EVALUATION_BUFFER_MAX must be at least WARDEN_EVALUATION_BATCH_MAX',
    path: ['WARDEN_EVALUATION_BUFFER_MAX'],
  });
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/**
 * What `start()` takes: a parsed {@link GatewayConfig}, where the recorder settings may be left out
 * (callers that build the configuration in code get {@link RECORDER_DEFAULTS}).
 */
export type GatewayStartConfig = Omit<GatewayConfig, OptionalAtStart> &
  Partial<Pick<GatewayConfig, OptionalAtStart>>;
/** Settings `start()` defaults itself when a caller (a test, the bench) leaves them out. */
type OptionalAtStart = keyof typeof RECORDER_DEFAULTS | 'WARDEN_POLICY_HINTS';

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
