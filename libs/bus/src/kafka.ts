import { Admin } from '@platformatic/kafka';
import type { TopicMessage, TopicName } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { KafkaGroupMember } from './kafka-consumer';
import { PlatformaticPublisher } from './platformatic-publisher';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longest `ensureTopics` waits for every partition of a topic it created to have a leader, ms. */
const LEADER_WAIT_MS = 10_000;

/**
 * Kafka implementation of {@link EventBus} on `@platformatic/kafka` (docs/decisions.md "One Kafka
 * client: `@platformatic/kafka`"). Publishing is a {@link PlatformaticPublisher}: an idempotent
 * producer with `acks: -1` and one request in flight; concurrent publishes are coalesced into one
 * send; records go to the Java client's partition of their key; a publish fails with
 * {@link BusUnavailableError} after at most `publishTimeoutMs`, and the producer is then recreated
 * (new producer id), so sequence numbers never go stale. Each `subscribe` is a
 * {@link KafkaGroupMember}: offsets are committed only after the handler resolved; a failing
 * handler is retried with backoff (the batch is never skipped; handlers dead-letter poison
 * records themselves).
 */
export class KafkaBus implements EventBus {
  private readonly publisher: PlatformaticPublisher;
  private readonly members = new Set<KafkaGroupMember>();
  private closed = false;
  private readonly prefix: string;

  constructor(private readonly options: KafkaBusOptions) {
    this.prefix = options.topicPrefix ?? '';
    this.publisher = new PlatformaticPublisher({
      brokers: options.brokers,
      clientId: options.clientId,
      logger: options.logger,
      topicPrefix: this.prefix,
      publishTimeoutMs: options.publishTimeoutMs,
    });
  }

  /**
   * Creates the topics that do not exist yet (idempotent, also when another process creates them
   * at the same time) and waits until each partition of a created topic has a leader.
   * `replicationFactor` defaults to 1 (single broker). Throws the client's error when Kafka cannot
   * be reached or refuses the creation.
   */
  async ensureTopics(
    topics: { topic: TopicName; numPartitions: number; replicationFactor?: number }[],
  ): Promise<void> {
    const admin = new Admin({
      clientId: this.options.clientId,
      bootstrapBrokers: this.options.brokers,
      connectTimeout: 3_000,
      timeout: 10_000,
      retries: 5,
      retryDelay: 200,
    });
    try {
      const missing = async () => {
        const existing = new Set(await admin.listTopics());
        return topics.filter((t) => !existing.has(this.prefix + t.topic));
      };
      const toCreate = await missing();
      if (toCreate.length === 0) return;
      const names = toCreate.map((t) => this.prefix + t.topic);
      try {
        await admin.createTopics({
          topics: toCreate.map((t) => ({
            topic: this.prefix + t.topic,
            partitions: t.numPartitions,
            replicas: t.replicationFactor ?? 1,
          })),
        });
      } catch (err) {
        // Created by someone else in the meantime (TOPIC_ALREADY_EXISTS) is success.
        if ((await missing()).length > 0) throw err;
      }
      await this.waitForLeaders(admin, names);
      this.options.logger.info({ topics: toCreate.map((t) => t.topic) }, 'topics created');
    } finally {
      await admin.close().catch(() => undefined);
    }
  }

  private async waitForLeaders(admin: Admin, names: string[]): Promise<void> {
    const until = Date.now() + LEADER_WAIT_MS;
    for (;;) {
      const led = await admin.metadata({ topics: names, forceUpdate: true }).then(
        (m) => names.every((n) => m.topics.get(n)?.partitions.every((p) => p.leader >= 0)),
        () => false,
      );
      if (led) return;
      if (Date.now() > until) {
        this.options.logger.warn({ topics: names }, 'created topics have no leader yet');
        return;
      }
      await sleep(100);
    }
  }

  async publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void> {
    if (this.closed) throw new BusUnavailableError('bus is closed');
    await this.publisher.publish(topic, messages);
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new BusUnavailableError('bus is closed');
    const member = new KafkaGroupMember(
      {
        brokers: this.options.brokers,
        clientId: this.options.clientId,
        logger: this.options.logger,
        topicPrefix: this.prefix,
        partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently,
        handlerRetryDelayMs: this.options.handlerRetryDelayMs,
      },
      opts,
    );
    this.members.add(member);
    await member.start();
    return {
      stop: async () => {
        this.members.delete(member);
        await member.stop();
      },
    };
  }

  /** False after a publish failed, until one succeeds. */
  isHealthy(): boolean {
    return this.publisher.isHealthy();
  }

  /** Stops every subscription (after its batch in progress) and closes the producer. Never throws. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.members].map((m) => m.stop().catch(() => undefined)));
    this.members.clear();
    await this.publisher.close();
  }
}
