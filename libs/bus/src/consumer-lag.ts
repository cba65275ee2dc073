import { Admin } from '@platformatic/kafka';
import type { TopicName } from '@agent-warden/contracts';
import type { PartitionLag } from '@agent-warden/observability';

/** Settings of a {@link KafkaConsumerLag}. */
export interface KafkaConsumerLagOptions {
  brokers: string[];
  clientId: string;
  /** Prefix of the physical topic names (`KAFKA_TOPIC_PREFIX`); lags name the logical topic. */
  topicPrefix?: string;
  /** The consumer group whose lag is read. */
  groupId: string;
  topics: TopicName[];
  /** Longest one Kafka request of a reading may take, ms (default 3000: under a scrape's timeout). */
  timeoutMs?: number;
}

/** `ListOffsets` timestamps of the Kafka protocol: the next offset to be written, and the first kept. */
const LATEST = -1n;
const EARLIEST = -2n;

/**
 * Reads a consumer group's lag per partition from the brokers (for `warden_kafka_consumer_lag`):
 * for each partition of the topics, the high watermark (`ListOffsets` latest) minus the group's
 * committed offset (`OffsetFetch`), as `kafka-consumer-groups.sh --describe` reports it. A partition
 * the group never committed counts from the earliest offset still kept (the group starts there:
 * `fromBeginning`). Reads on demand (at scrape time), over one admin connection kept between
 * readings and made again after a failure.
 */
export class KafkaConsumerLag {
  private admin?: Admin;
  private readonly prefix: string;

  constructor(private readonly options: KafkaConsumerLagOptions) {
    this.prefix = options.topicPrefix ?? '';
  }

  private client(): Admin {
    const timeout = this.options.timeoutMs ?? 3_000;
    this.admin ??= new Admin({
      clientId: this.options.clientId,
      bootstrapBrokers: this.options.brokers,
      connectTimeout: timeout,
      timeout,
      retries: 1,
      retryDelay: 100,
    });
    return this.admin;
  }

  /**
   * The lag of every partition of the topics, records (never negative).
   * @throws the client's error when Kafka cannot be reached (the admin connection is then dropped)
   */
  async read(): Promise<PartitionLag[]> {
    const admin = this.client();
    try {
      const names = this.options.topics.map((t) => this.prefix + t);
      const meta = await admin.metadata({ topics: names });
      const partitions = new Map(
        names.map((n) => [n, (meta.topics.get(n)?.partitions ?? []).map((_p, i) => i)] as const),
      );
      const request = (timestamp: bigint) =>
        admin.listOffsets({
          topics: names.map((name) => ({
            name,
            partitions: partitions.get(name)!.map((partitionIndex) => ({ partitionIndex, timestamp })),
          })),
        });
      const [latest, earliest, committed] = await Promise.all([
        request(LATEST),
        request(EARLIEST),
        admin.listConsumerGroupOffsets({
          groups: [
            {
              groupId: this.options.groupId,
              topics: names.map((name) => ({ name, partitionIndexes: partitions.get(name)! })),
            },
          ],
        }),
      ]);
      const offsets = (
        topics: { name: string; partitions: { partitionIndex: number; offset: bigint }[] }[],
      ) =>
        new Map(topics.flatMap((t) => t.partitions.map((p) => [`${t.name}:${p.partitionIndex}`, p.offset])));
      const high = offsets(latest);
      const low = offsets(earliest);
      const done = new Map(
        committed
          .flatMap((g) => g.topics)
          .flatMap((t) => t.partitions.map((p) => [`${t.name}:${p.partitionIndex}`, p.committedOffset])),
      );
      const out: PartitionLag[] = [];
      for (const [name, ids] of partitions)
        for (const partition of ids) {
          const key = `${name}:${partition}`;
          const end = high.get(key);
          if (end === undefined) continue;
          const c = done.get(key);
          const from = c !== undefined && c >= 0n ? c : (low.get(key) ?? 0n);
          const lag = end > from ? Number(end - from) : 0;
          out.push({ group: this.options.groupId, topic: name.slice(this.prefix.length), partition, lag });
        }
      return out;
    } catch (err) {
      this.admin = undefined;
      await admin.close().catch(() => undefined);
      throw err;
    }
  }

  /** Closes the admin connection. Never throws. */
  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.close().catch(() => undefined);
  }
}
