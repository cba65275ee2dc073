import { Kafka, logLevel } from 'kafkajs';
import { BusUnavailableError, KafkaBus, KafkaPublisherThread } from '@agent-warden/bus';
import { TOPICS, type TopicMessage } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import { randomSuffix, requireEnv } from './support/env';

/**
 * The gateway's evaluation publisher: a `@platformatic/kafka` producer in a worker thread. What it publishes
 * lands in Kafka, durably acknowledged, on the partition the Java client would choose.
 */
describe('KafkaPublisherThread (real Kafka)', () => {
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const prefix = `pt${randomSuffix()}.`;
  const topic = TOPICS.guardrailEvaluations;
  const bus = new KafkaBus({ brokers, clientId: 'pt-test', topicPrefix: prefix, logger: silentLogger() });
  const threads: KafkaPublisherThread[] = [];
  const thread = (o: Partial<ConstructorParameters<typeof KafkaPublisherThread>[0]> = {}) => {
    const t = new KafkaPublisherThread(
      { brokers, clientId: 'pt-test', topicPrefix: prefix, logName: 'pt-test', logLevel: 'silent', ...o },
      silentLogger(),
    );
    threads.push(t);
    return t;
  };
  const message = (i: number) =>
    ({
      key: `01JEVAL${String(i).padStart(6, '0')}`,
      value: { specversion: '1.0', id: `e${i}`, data: { i } },
    }) as unknown as TopicMessage<typeof topic>;

  beforeAll(async () => {
    await bus.ensureTopics([{ topic, numPartitions: 3 }]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(threads.map((t) => t.close()));
    await bus.close();
  }, 60_000);

  test('publishes every record once, each on the partition of its key', async () => {
    const t = thread();
    const sent = Array.from({ length: 250 }, (_, i) => message(i));
    // Several batches in flight at once, as the recorder never sends but one; the thread copes with both.
    await Promise.all([t.publish(topic, sent.slice(0, 100)), t.publish(topic, sent.slice(100))]);
    expect(t.isHealthy()).toBe(true);

    const kafka = new Kafka({ brokers, clientId: 'pt-read', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(prefix + topic);
    await admin.disconnect();
    expect(offsets.reduce((a, o) => a + Number(o.high) - Number(o.low), 0)).toBe(250);

    const got: { key: string; partition: number; value: unknown }[] = [];
    const consumer = kafka.consumer({ groupId: `pt-${randomSuffix()}` });
    await consumer.connect();
    await consumer.subscribe({ topics: [prefix + topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message: m }) => {
        got.push({ key: m.key!.toString(), partition, value: JSON.parse(m.value!.toString()) });
      },
    });
    const until = Date.now() + 30_000;
    while (got.length < 250 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();

    expect(got).toHaveLength(250);
    expect(new Set(got.map((g) => g.key)).size).toBe(250);
    const byKey = new Map(got.map((g) => [g.key, g]));
    for (const m of sent) expect(byKey.get(m.key!)?.value).toEqual(m.value);
    // Java-client placement: murmur2(key) — kafkajs's default partitioner agrees (libs/bus/test/partitioner.test.ts).
    const { Partitioners } = await import('kafkajs');
    const javaPlacement = Partitioners.DefaultPartitioner();
    const meta = [0, 1, 2].map((partitionId) => ({
      partitionErrorCode: 0,
      partitionId,
      leader: 1,
      replicas: [1],
      isr: [1],
    }));
    for (const g of got)
      expect(g.partition).toBe(
        javaPlacement({ topic, partitionMetadata: meta, message: { key: g.key, value: null } }),
      );
  }, 60_000);

  test('an unreachable broker fails the publish with BusUnavailableError within its timeout', async () => {
    const t = thread({ brokers: ['127.0.0.1:1'], publishTimeoutMs: 1_000 });
    const t0 = Date.now();
    await expect(t.publish(topic, [message(1)])).rejects.toBeInstanceOf(BusUnavailableError);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(t.isHealthy()).toBe(false);
  }, 30_000);

  test('a failed publish does not block the ones after it (new producer, fresh sequence numbers)', async () => {
    const t = thread({ publishTimeoutMs: 3_000 });
    await t.publish(topic, [message(20)]);
    // A topic the broker does not have (topics are never auto-created): the send fails.
    const missing = 'no-such-topic' as typeof topic;
    await expect(t.publish(missing, [message(21)])).rejects.toBeInstanceOf(BusUnavailableError);
    expect(t.isHealthy()).toBe(false);
    await t.publish(topic, [message(22), message(23)]);
    expect(t.isHealthy()).toBe(true);
  }, 30_000);

  test('after close, the thread has ended and publishes are refused', async () => {
    const t = thread();
    await t.publish(topic, [message(9)]);
    await t.close();
    await expect(t.publish(topic, [message(10)])).rejects.toBeInstanceOf(BusUnavailableError);
  }, 30_000);
});
