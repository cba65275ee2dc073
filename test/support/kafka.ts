import {
  Consumer,
  ListOffsetTimestamps,
  MessagesStreamModes,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { randomSuffix } from './env';

/** A record as read back from the broker. */
export interface ReadRecord {
  key: string | null;
  value: string | null;
  partition: number;
  offset: bigint;
}

/**
 * Writes `messages` to `topic` with a plain `@platformatic/kafka` producer (not the code under
 * test): raw values, placed on the client's own partition of their key.
 */
export async function produceRaw(
  brokers: string[],
  topic: string,
  messages: { key: string; value: string }[],
): Promise<void> {
  const producer = new Producer({
    clientId: `test-writer-${randomSuffix()}`,
    bootstrapBrokers: brokers,
    serializers: stringSerializers,
  });
  try {
    await producer.send({ messages: messages.map((m) => ({ topic, key: m.key, value: m.value })) });
  } finally {
    await producer.close();
  }
}

/** Number of records `topic` holds (sum over its partitions of latest − earliest offset). */
export async function countRecords(brokers: string[], topic: string): Promise<number> {
  const consumer = new Consumer({
    clientId: `test-counter-${randomSuffix()}`,
    groupId: `test-counter-${randomSuffix()}`,
    bootstrapBrokers: brokers,
  });
  try {
    const [earliest, latest] = await Promise.all(
      [ListOffsetTimestamps.EARLIEST, ListOffsetTimestamps.LATEST].map((timestamp) =>
        consumer.listOffsets({ topics: [topic], timestamp }),
      ),
    );
    const low = earliest!.get(topic) ?? [];
    return (latest!.get(topic) ?? []).reduce((sum, high, i) => sum + Number(high - (low[i] ?? 0n)), 0);
  } finally {
    await consumer.close();
  }
}

/**
 * Reads `topic` from its beginning (a fresh consumer group, nothing committed) until `count`
 * records arrived or `timeoutMs` passed; returns what arrived, in arrival order.
 */
export async function readTopic(
  brokers: string[],
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<ReadRecord[]> {
  const consumer = new Consumer({
    clientId: `test-reader-${randomSuffix()}`,
    groupId: `test-reader-${randomSuffix()}`,
    bootstrapBrokers: brokers,
    deserializers: stringDeserializers,
    autocommit: false,
    maxWaitTime: 100,
  });
  const got: ReadRecord[] = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST });
    const timer = setTimeout(() => void stream.close(), timeoutMs);
    try {
      for await (const m of stream) {
        got.push({ key: m.key ?? null, value: m.value ?? null, partition: m.partition, offset: m.offset });
        if (got.length >= count) break;
      }
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await consumer.close(true);
  }
  return got;
}
