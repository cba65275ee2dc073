import { Kafka, logLevel, type Consumer, type Producer, type LogEntry } from 'kafkajs';
import type { TopicMessage, TopicName } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { SendCoalescer } from './coalescer';
import { withDeadline } from './deadline';
import { JavaCompatiblePartitioner } from './partitioner';
import { BusUnavailableError, type EventBus, type SubscribeOptions, type Subscription } from './types';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** Longest a publish may take before it fails with {@link BusUnavailableError}, ms (default 5000). */
  publishTimeoutMs?: number;
  /** Partitions processed concurrently by one consumer (default 3). */
  partitionsConsumedConcurrently?: number;
  /** Delay between retries of a failing batch handler, ms (doubles up to 5 s; default 200). */
  handlerRetryDelayMs?: number;
  /**
   * Prefix of the physical Kafka topic names (`KAFKA_TOPIC_PREFIX`, default none): logical
   * `agent-events` is `<prefix>agent-events` on the broker. Lets tests and tenants share a cluster.
   */
  topicPrefix?: string;
}

function kafkaLogCreator(logger: Logger) {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, ...extra } = log;
      const fields = { component: 'kafkajs', namespace, ...extra };
      if (level === logLevel.ERROR) logger.error(fields, message);
      else if (level === logLevel.WARN) logger.warn(fields, message);
      else logger.debug(fields, message);
    };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Kafka implementation of {@link EventBus} (kafkajs). The producer is idempotent with `acks: -1`
 * and one request in flight; concurrent publishes are coalesced into one `sendBatch`. After a
 * failed send the producer is recreated (new producer id), so sequence numbers never go stale.
 * Consumers commit offsets only after the handler resolved; a failing handler is retried with
 * backoff (the batch is never skipped; handlers dead-letter poison records themselves).
 */
export class KafkaBus implements EventBus {
  private readonly kafka: Kafka;
  private producer?: Producer;
  private producerReady?: Promise<Producer>;
  private readonly coalescers = new Map<TopicName, SendCoalescer<TopicMessage<TopicName>>>();
  private readonly consumers = new Set<Consumer>();
  private healthy = true;
  private closed = false;

  private readonly prefix: string;

  constructor(private readonly options: KafkaBusOptions) {
    this.prefix = options.topicPrefix ?? '';
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      connectionTimeout: 3_000,
      requestTimeout: 10_000,
      logLevel: logLevel.WARN,
      logCreator: kafkaLogCreator(options.logger),
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    });
  }

  /** Creates topics that do not exist yet (idempotent). `replicationFactor` defaults to 1 (single broker). */
  async ensureTopics(
    topics: { topic: TopicName; numPartitions: number; replicationFactor?: number }[],
  ): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(this.prefix + t.topic));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({
            topic: this.prefix + t.topic,
            numPartitions: t.numPartitions,
            replicationFactor: t.replicationFactor ?? 1,
          })),
        });
        this.options.logger.info({ topics: missing.map((t) => t.topic) }, 'topics created');
      }
    } finally {
      await admin.disconnect();
    }
  }

  private getProducer(): Promise<Producer> {
    if (!this.producerReady) {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        // kafkajs's default placement, without its BigInt hashing (libs/bus/src/partitioner.ts).
        createPartitioner: JavaCompatiblePartitioner,
        // Bounded so that a publish fails (→ 503, the client retries) instead of hanging while
        // Kafka is down; duplicates from client retries are removed by the projector (event id).
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
      });
      this.producer = producer;
      this.producerReady = producer.connect().then(
        () => producer,
        (err) => {
          this.producerReady = undefined;
          throw err;
        },
      );
    }
    return this.producerReady;
  }

  private async resetProducer(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    this.producerReady = undefined;
    if (p) await p.disconnect().catch(() => undefined);
  }

  private async sendNow(topic: TopicName, messages: TopicMessage<TopicName>[]): Promise<void> {
    try {
      await withDeadline(this.options.publishTimeoutMs ?? 5_000, async (race) => {
        const producer = await race(this.getProducer());
        await race(
          producer.send({
            topic: this.prefix + topic,
            acks: -1,
            messages: messages.map((m) => ({ key: m.key, value: JSON.stringify(m.value) })),
          }),
        );
      });
      this.healthy = true;
    } catch (err) {
      this.healthy = false;
      this.options.logger.warn({ err, topic, count: messages.length }, 'publish failed');
      await this.resetProducer();
      throw new BusUnavailableError('the event log cannot take the write', { cause: err });
    }
  }

  async publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void> {
    if (this.closed) throw new BusUnavailableError('bus is closed');
    if (messages.length === 0) return;
    let c = this.coalescers.get(topic);
    if (!c) {
      c = new SendCoalescer((items) => this.sendNow(topic, items));
      this.coalescers.set(topic, c);
    }
    await c.submit(messages as unknown as TopicMessage<TopicName>[]);
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: opts.groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: opts.maxWaitTimeMs ?? 100,
      // Larger fetches give the projector larger batches (fewer transactions): 4 MiB a partition.
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 16 * 1024 * 1024,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5_000 },
    });
    this.consumers.add(consumer);
    await consumer.connect();
    await consumer.subscribe({
      topics: opts.topics.map((t) => this.prefix + t),
      fromBeginning: opts.fromBeginning ?? true,
    });
    const log = this.options.logger.child({ component: 'consumer', groupId: opts.groupId });
    // Resolve once this member has joined the group (a fresh broker first creates __consumer_offsets).
    let onJoin: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (onJoin = resolve));
    const removeJoin = consumer.on(consumer.events.GROUP_JOIN, () => onJoin());
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
      eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
        if (batch.messages.length === 0) return;
        const records = batch.messages.map((m) => ({
          key: m.key ? m.key.toString('utf8') : null,
          value: m.value ? m.value.toString('utf8') : null,
          partition: batch.partition,
          offset: m.offset,
        }));
        let delay = this.options.handlerRetryDelayMs ?? 200;
        for (;;) {
          if (!isRunning() || isStale()) return; // not committed: delivered again
          try {
            await opts.handler({
              topic: batch.topic.slice(this.prefix.length) as TopicName,
              partition: batch.partition,
              records,
            });
            break;
          } catch (err) {
            log.warn(
              { err, topic: batch.topic, partition: batch.partition, delayMs: delay },
              'batch handler failed; retrying',
            );
            await sleep(delay);
            delay = Math.min(delay * 2, 5_000);
            await heartbeat().catch(() => undefined);
          }
        }
        // resolveOffset moves the consumer's fetch position (without it kafkajs fetches the same
        // records again); commitOffsets makes the position durable for the consumer group.
        resolveOffset(batch.lastOffset());
        const next = (BigInt(batch.lastOffset()) + 1n).toString();
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
        await heartbeat();
      },
    });
    const joinTimeoutMs = 60_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      joined.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), joinTimeoutMs))),
    ]);
    clearTimeout(timer);
    removeJoin();
    if (timedOut) log.warn({ joinTimeoutMs }, 'consumer has not joined its group yet; it keeps trying');
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.consumers].map((c) => c.disconnect().catch(() => undefined)));
    this.consumers.clear();
    await this.resetProducer();
  }
}
