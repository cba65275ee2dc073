import type { TopicMessage, TopicName } from '@agent-warden/contracts';

/** A record as a consumer sees it: raw bytes decoded as UTF-8, so unparseable records can be dead-lettered. */
export interface BusRecord {
  key: string | null;
  value: string | null;
  partition: number;
  /** Offset in its partition, as a decimal string (Kafka offsets are 64-bit). */
  offset: string;
}

/** Records of one topic-partition, in order. */
export interface BusBatch {
  topic: TopicName;
  partition: number;
  records: BusRecord[];
}

/**
 * Handles a batch. Resolving means every record is durably processed: only then are the offsets
 * committed. Throwing leaves them uncommitted and the batch is delivered again (at-least-once;
 * consumers make writes idempotent).
 */
export type BatchHandler = (batch: BusBatch) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group id: instances of one group share the partitions. */
  groupId: string;
  topics: TopicName[];
  handler: BatchHandler;
  /** Read from the beginning when the group has no committed offset (default true). */
  fromBeginning?: boolean;
  /**
   * Longest a Kafka fetch waits for records before it answers empty, ms (default 100). Records
   * are delivered as soon as they arrive either way; a longer wait only means fewer idle fetches
   * (e.g. a topic of rare hints). Ignored by the in-process bus.
   */
  maxWaitTimeMs?: number;
}

export interface Subscription {
  /** Stops consuming after the batch in progress; resolves when stopped. */
  stop(): Promise<void>;
}

/**
 * The event bus: `publish` / `subscribe` (docs/architecture.md#two-ways-to-run). Two implementations:
 * Kafka (stack) and in-process (standalone); nothing above them knows which one runs.
 */
export interface EventBus {
  /**
   * Publishes records; resolves only once the log has them durably (Kafka: acks from all in-sync
   * replicas). Rejects with {@link BusUnavailableError} when the log cannot take the write in time.
   */
  publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** True while the bus can take writes (used by `/ready`). */
  isHealthy(): boolean;
  close(): Promise<void>;
}

/** The event log cannot take a write now; retriable (HTTP 503 at the gateway). */
export class BusUnavailableError extends Error {
  readonly code = 'event_log_unavailable';
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BusUnavailableError';
  }
}
