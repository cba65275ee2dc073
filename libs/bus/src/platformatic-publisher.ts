import { Producer, ProduceAcks, stringSerializers } from '@platformatic/kafka';
import type { TopicMessage, TopicName } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { SendCoalescer } from './coalescer';
import { withDeadline } from './deadline';
import { javaCompatiblePartitioner } from './partitioner';
import { BusUnavailableError, type EventBus } from './types';

/** Settings of a {@link PlatformaticPublisher}. */
export interface PlatformaticPublisherOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /** Prefix of the physical topic names (`KAFKA_TOPIC_PREFIX`, as in {@link KafkaBusOptions}). */
  topicPrefix?: string;
  /** Longest a publish may take before it fails with {@link BusUnavailableError}, ms (default 5000). */
  publishTimeoutMs?: number;
}

/** A record on its way to the producer: the logical message and its physical topic. */
interface Outgoing {
  topic: string;
  key: string;
  value: string;
}

/**
 * The publishing half of {@link EventBus} on `@platformatic/kafka` (the project's one Kafka client,
 * docs/decisions.md "One Kafka client: `@platformatic/kafka`"): what {@link KafkaBus.publish} runs
 * in-process and the {@link KafkaPublisherThread} runs in its worker thread. An idempotent producer
 * (KIP-98) with `acks: -1`, one produce request in flight (concurrent publishes, to any topic, are
 * coalesced by {@link SendCoalescer}, which also keeps the idempotent sequence numbers in order),
 * records placed on the Java client's partition of their key ({@link javaCompatiblePartitioner}),
 * and after a failed send a new producer (new producer id), so stale sequence numbers never block
 * later sends. A publish that cannot complete within `publishTimeoutMs` rejects with
 * {@link BusUnavailableError}. The producer connects on the first publish.
 *
 * `@platformatic/kafka` is an ES module: Node 24 `require`s it natively; Jest compiles it to
 * CommonJS (jest.config.ts). The class stays out of the package index (use {@link KafkaBus}).
 */
export class PlatformaticPublisher implements Pick<EventBus, 'publish' | 'isHealthy' | 'close'> {
  private producer?: Producer<string, string, string, string>;
  private readonly coalescer = new SendCoalescer<Outgoing>((items) => this.sendNow(items));
  private healthy = true;
  private closed = false;
  private readonly prefix: string;

  constructor(private readonly options: PlatformaticPublisherOptions) {
    this.prefix = options.topicPrefix ?? '';
  }

  private getProducer(): Producer<string, string, string, string> {
    this.producer ??= new Producer({
      clientId: this.options.clientId,
      bootstrapBrokers: this.options.brokers,
      serializers: stringSerializers,
      idempotent: true,
      acks: ProduceAcks.ALL,
      autocreateTopics: false,
      partitioner: javaCompatiblePartitioner,
      connectTimeout: 3_000,
      timeout: 10_000,
      // Bounded so that a publish fails (→ 503 at the gateway, the client retries) instead of hanging
      // while Kafka is down; duplicates from client retries are removed by the projector (event id).
      retries: 3,
      retryDelay: 100,
    });
    return this.producer;
  }

  private async resetProducer(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    if (p) await p.close().catch(() => undefined);
  }

  private async sendNow(items: Outgoing[]): Promise<void> {
    try {
      await withDeadline(this.options.publishTimeoutMs ?? 5_000, (race) =>
        race(this.getProducer().send({ messages: items })),
      );
      this.healthy = true;
    } catch (err) {
      this.healthy = false;
      this.options.logger.warn({ err, count: items.length }, 'publish failed');
      await this.resetProducer();
      throw new BusUnavailableError('the event log cannot take the write', { cause: err });
    }
  }

  async publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void> {
    if (this.closed) throw new BusUnavailableError('bus is closed');
    if (messages.length === 0) return;
    const physical = this.prefix + topic;
    await this.coalescer.submit(
      messages.map((m) => ({ topic: physical, key: m.key, value: JSON.stringify(m.value) })),
    );
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.resetProducer();
  }
}
