import {
  Consumer,
  MessagesStreamFallbackModes,
  MessagesStreamModes,
  type Message,
  type MessagesStream,
} from '@platformatic/kafka';
import type { TopicName } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import type { BusBatch, SubscribeOptions, Subscription } from './types';

/** Settings of a {@link KafkaGroupMember}. */
export interface KafkaGroupMemberOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** Prefix of the physical topic names (`KAFKA_TOPIC_PREFIX`); batches name the logical topic. */
  topicPrefix: string;
  /** Partitions whose batches are handled concurrently (default 3). */
  partitionsConsumedConcurrently?: number;
  /** Delay before a failing batch is handled again, ms (doubles up to 5 s; default 200). */
  handlerRetryDelayMs?: number;
  /** How long `start` waits for the first group join before it resolves anyway, ms (default 60 000). */
  joinTimeoutMs?: number;
}

type Raw = Message<Buffer, Buffer, Buffer, Buffer>;

const MAX_DELAY_MS = 5_000;
const CLOSE_TIMEOUT_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads a {@link MessagesStream} a chunk at a time: everything the stream has buffered (one or more
 * fetches), so that a handler gets a partition's records in one batch rather than one by one.
 * Keeps its `readable` listener for the stream's whole life: without one the stream counts as
 * unconsumed and stops fetching.
 */
class ChunkReader {
  private wake?: () => void;
  private ended = false;
  private error?: Error;

  constructor(private readonly stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>) {
    stream.on('readable', () => this.notify());
    stream.on('end', () => this.finish());
    stream.on('close', () => this.finish());
    stream.on('error', (err) => {
      this.error = err;
      this.notify();
    });
  }

  private finish(): void {
    this.ended = true;
    this.notify();
  }

  /** Wakes a pending {@link next} (new records, end, error, or the caller's stop). */
  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /**
   * The records buffered now, waiting for some when there are none; `null` once the stream ended
   * or `stopped` says so. Throws the stream's error (a fetch that failed, e.g. the broker is gone).
   */
  async next(stopped: () => boolean): Promise<Raw[] | null> {
    for (;;) {
      if (this.error) throw this.error;
      if (stopped()) return null;
      const chunk: Raw[] = [];
      for (let m = this.stream.read() as Raw | null; m !== null; m = this.stream.read() as Raw | null)
        chunk.push(m);
      if (chunk.length > 0) return chunk;
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** A chunk's records of one topic-partition, in offset order. */
interface PartitionRun {
  topic: string;
  partition: number;
  messages: Raw[];
}

function byPartition(chunk: Raw[]): PartitionRun[] {
  const runs = new Map<string, PartitionRun>();
  for (const m of chunk) {
    const key = `${m.topic}:${m.partition}`;
    let run = runs.get(key);
    if (!run) runs.set(key, (run = { topic: m.topic, partition: m.partition, messages: [] }));
    run.messages.push(m);
  }
  return [...runs.values()];
}

/**
 * Runs `work` over `items`, at most `limit` at a time. After a failure no further item starts;
 * rejects with the first failure once the items in progress have settled (so that no handler of
 * this consumer still runs when the caller replaces it).
 */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { error: unknown } | undefined;
  const lane = async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++]!);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failed) throw failed.error;
}

/**
 * One consumer-group member of {@link KafkaBus.subscribe} on `@platformatic/kafka`. Reads the
 * subscription's topics from the group's committed offsets (a new group starts at the earliest
 * offset when `fromBeginning`, else at the latest) and hands the handler one {@link BusBatch} per
 * topic-partition of each chunk read, up to `partitionsConsumedConcurrently` partitions at once.
 *
 * Guarantees (docs/decisions.md "One Kafka client: `@platformatic/kafka`"):
 * - a batch's offset is committed only after the handler resolved (manual commits, no autocommit);
 * - a handler that throws gets the same batch again after a backoff (`handlerRetryDelayMs`,
 *   doubling up to 5 s) for as long as the partition stays assigned: a batch is never skipped;
 * - records redelivered within the member's life (after a rebalance the stream reads again from
 *   the committed offset) are not handed over twice once handled;
 * - when the client fails (a fetch or commit fails, e.g. while the broker is down, or the group
 *   cannot be rejoined), the member closes its consumer and joins again with a new one after a
 *   backoff (200 ms doubling up to 5 s); uncommitted records are then delivered again
 *   (at-least-once: handlers write idempotently).
 */
export class KafkaGroupMember implements Subscription {
  private stopping = false;
  private markStopped!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.markStopped = resolve));
  private reader?: ChunkReader;
  private running?: Promise<void>;
  private readonly log: Logger;

  constructor(
    private readonly options: KafkaGroupMemberOptions,
    private readonly subscription: SubscribeOptions,
  ) {
    this.log = options.logger.child({ component: 'consumer', groupId: subscription.groupId });
  }

  /**
   * Starts consuming; resolves once the member joined its group (a fresh broker first creates
   * `__consumer_offsets`, which takes seconds), or after `joinTimeoutMs` with a warning — it keeps
   * trying in the background either way.
   */
  async start(): Promise<void> {
    let joined!: () => void;
    const first = new Promise<void>((resolve) => (joined = resolve));
    this.running = this.run(joined);
    const joinTimeoutMs = this.options.joinTimeoutMs ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      first.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), joinTimeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) this.log.warn({ joinTimeoutMs }, 'consumer has not joined its group yet; it keeps trying');
  }

  /** Stops after the batch in progress (a failing one is not retried again), leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.markStopped();
    this.reader?.notify();
    await this.running;
  }

  private createConsumer(): Consumer<Buffer, Buffer, Buffer, Buffer> {
    return new Consumer({
      clientId: this.options.clientId,
      bootstrapBrokers: this.options.brokers,
      groupId: this.subscription.groupId,
      autocommit: false,
      autocreateTopics: false,
      connectTimeout: 3_000,
      timeout: 10_000,
      retries: 5,
      retryDelay: 200,
      sessionTimeout: 30_000,
      rebalanceTimeout: 60_000,
      heartbeatInterval: 3_000,
      minBytes: 1,
      maxWaitTime: this.subscription.maxWaitTimeMs ?? 100,
      // Larger fetches give the projector larger batches (fewer transactions): 4 MiB a partition.
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 16 * 1024 * 1024,
    });
  }

  private async closeConsumer(consumer: Consumer<Buffer, Buffer, Buffer, Buffer> | undefined): Promise<void> {
    if (!consumer || consumer.closed) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      consumer.close(true).catch((err: unknown) => this.log.debug({ err }, 'consumer close failed')),
      new Promise((r) => (timer = setTimeout(r, CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** Joins, consumes until stopped or the client fails, then joins again with a new consumer. */
  private async run(joined: () => void): Promise<void> {
    let delay = 200;
    while (!this.stopping) {
      const consumer = this.createConsumer();
      // Emitted when the group cannot be rejoined (heartbeats stop): this consumer is done.
      let failure: Error | undefined;
      consumer.on('error', (err: Error) => {
        failure = err;
        this.reader?.notify();
      });
      try {
        const consuming = consumer.consume({
          topics: this.subscription.topics.map((t) => this.options.topicPrefix + t),
          mode: MessagesStreamModes.COMMITTED,
          fallbackMode:
            (this.subscription.fromBeginning ?? true)
              ? MessagesStreamFallbackModes.EARLIEST
              : MessagesStreamFallbackModes.LATEST,
          autocommit: false,
        });
        // A member still joining when stopped gives up the join (its consumer is closed below);
        // a stream that still arrives then is closed at once, its errors ignored.
        consuming.then(
          (late) => {
            if (!this.stopping) return;
            late.on('error', () => undefined);
            void late.close().catch(() => undefined);
          },
          () => undefined,
        );
        const stream = await Promise.race([this.stopped.then(() => undefined), consuming]);
        if (!stream) break;
        this.reader = new ChunkReader(stream);
        joined();
        delay = 200;
        await this.consume(consumer, this.reader, () => failure);
      } catch (err) {
        if (!this.stopping) this.log.warn({ err, delayMs: delay }, 'consumer failed; joining again');
      } finally {
        this.reader = undefined;
        await this.closeConsumer(consumer);
      }
      if (!this.stopping) {
        // Cut short by stop; the timer left behind does not hold the process.
        await Promise.race([new Promise((r) => setTimeout(r, delay).unref()), this.stopped]);
        delay = Math.min(delay * 2, MAX_DELAY_MS);
      }
    }
  }

  private async consume(
    consumer: Consumer<Buffer, Buffer, Buffer, Buffer>,
    reader: ChunkReader,
    failure: () => Error | undefined,
  ): Promise<void> {
    // Next offset to hand over per `topic:partition`, for this consumer's life.
    const handled = new Map<string, bigint>();
    const concurrency = this.options.partitionsConsumedConcurrently ?? 3;
    for (;;) {
      const chunk = await reader.next(() => this.stopping || failure() !== undefined);
      const failed = failure();
      if (failed) throw failed;
      if (!chunk) {
        if (this.stopping) return;
        throw new Error('the consumer stream ended');
      }
      await eachLimited(byPartition(chunk), concurrency, (run) =>
        this.handle(consumer, run, handled, failure),
      );
    }
  }

  private assigned(
    consumer: Consumer<Buffer, Buffer, Buffer, Buffer>,
    topic: string,
    partition: number,
  ): boolean {
    return !!consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition));
  }

  /** Hands one partition's records to the handler until it resolves, then commits their offset. */
  private async handle(
    consumer: Consumer<Buffer, Buffer, Buffer, Buffer>,
    run: PartitionRun,
    handled: Map<string, bigint>,
    failure: () => Error | undefined,
  ): Promise<void> {
    const key = `${run.topic}:${run.partition}`;
    const from = handled.get(key) ?? -1n;
    const messages = run.messages.filter((m) => m.offset >= from);
    if (messages.length === 0) return;
    const batch: BusBatch = {
      topic: run.topic.slice(this.options.topicPrefix.length) as TopicName,
      partition: run.partition,
      records: messages.map((m) => ({
        key: m.key ? m.key.toString('utf8') : null,
        value: m.value ? m.value.toString('utf8') : null,
        partition: run.partition,
        offset: m.offset.toString(),
      })),
    };
    let delay = this.options.handlerRetryDelayMs ?? 200;
    for (;;) {
      // Stopped, the consumer failed, or the partition went to another member: not committed,
      // so delivered again.
      if (this.stopping || failure() || !this.assigned(consumer, run.topic, run.partition)) return;
      try {
        await this.subscription.handler(batch);
        break;
      } catch (err) {
        this.log.warn(
          { err, topic: run.topic, partition: run.partition, delayMs: delay },
          'batch handler failed; retrying',
        );
        await sleep(delay);
        delay = Math.min(delay * 2, MAX_DELAY_MS);
      }
    }
    const last = messages[messages.length - 1]!;
    const next = last.offset + 1n;
    handled.set(key, next);
    // A partition revoked meanwhile is committed by its new owner (the records are handled twice).
    if (!this.assigned(consumer, run.topic, run.partition)) return;
    await consumer.commit({
      offsets: [{ topic: run.topic, partition: run.partition, offset: next, leaderEpoch: last.leaderEpoch }],
    });
  }
}
