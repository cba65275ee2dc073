import type { TopicMessage, TopicName } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { SendCoalescer } from './coalescer';
import {
  BusUnavailableError,
  type BatchHandler,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from './types';

/**
 * In-process implementation of {@link EventBus} for standalone mode. There is no log on disk:
 * to keep "accepted means stored", `publish` resolves only after every subscribed group's handler
 * has processed the records (write-through), and rejects with {@link BusUnavailableError} when a
 * handler fails — so the gateway answers 503 and the client retries, as with Kafka.
 * Concurrent publishes are coalesced into one handler call (one partition, 0).
 */
export class InMemoryBus implements EventBus {
  private readonly groups = new Map<TopicName, Map<string, BatchHandler>>();
  private readonly coalescers = new Map<TopicName, SendCoalescer<TopicMessage<TopicName>>>();
  private readonly offsets = new Map<TopicName, bigint>();
  private closed = false;
  private healthy = true;

  constructor(private readonly logger: Logger) {}

  private async deliver(topic: TopicName, messages: TopicMessage<TopicName>[]): Promise<void> {
    const handlers = [...(this.groups.get(topic)?.values() ?? [])];
    const base = this.offsets.get(topic) ?? 0n;
    this.offsets.set(topic, base + BigInt(messages.length));
    const records = messages.map((m, i) => ({
      key: m.key,
      value: JSON.stringify(m.value),
      partition: 0,
      offset: (base + BigInt(i)).toString(),
    }));
    try {
      await Promise.all(handlers.map((h) => h({ topic, partition: 0, records })));
      this.healthy = true;
    } catch (err) {
      this.healthy = false;
      this.logger.warn({ err, topic, count: messages.length }, 'in-process delivery failed');
      throw new BusUnavailableError('the event log cannot take the write', { cause: err });
    }
  }

  async publish<T extends TopicName>(topic: T, messages: TopicMessage<T>[]): Promise<void> {
    if (this.closed) throw new BusUnavailableError('bus is closed');
    if (messages.length === 0) return;
    let c = this.coalescers.get(topic);
    if (!c) {
      c = new SendCoalescer((items) => this.deliver(topic, items), 5_000);
      this.coalescers.set(topic, c);
    }
    await c.submit(messages as unknown as TopicMessage<TopicName>[]);
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    for (const topic of opts.topics) {
      let g = this.groups.get(topic);
      if (!g) this.groups.set(topic, (g = new Map()));
      if (g.has(opts.groupId)) throw new Error(`group ${opts.groupId} already subscribed to ${topic}`);
      g.set(opts.groupId, opts.handler);
    }
    return {
      stop: async () => {
        for (const topic of opts.topics) this.groups.get(topic)?.delete(opts.groupId);
      },
    };
  }

  isHealthy(): boolean {
    return !this.closed && this.healthy;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.groups.clear();
  }
}
