import { BusUnavailableError, KafkaBus, KafkaPublisherThread } from '@agent-warden/bus';
import { TOPICS, type TopicMessage } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import { murmur2 } from '../libs/bus/src/partitioner';
import { randomSuffix, requireEnv } from './support/env';
import { countRecords, readTopic } from './support/kafka';

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

    expect(await countRecords(brokers, prefix + topic)).toBe(250);

    const got = (await readTopic(brokers, prefix + topic, 250)).map((r) => ({
      key: r.key!,
      partition: r.partition,
      value: JSON.parse(r.value!) as unknown,
    }));
    expect(got).toHaveLength(250);
    expect(new Set(got.map((g) => g.key)).size).toBe(250);
    const byKey = new Map(got.map((g) => [g.key, g]));
    for (const m of sent) expect(byKey.get(m.key!)?.value).toEqual(m.value);
    // Java-client placement: (murmur2(utf8(key)) & 0x7fffffff) % partitions, with murmur2 checked
    // against Kafka's own test values in libs/bus/test/partitioner.test.ts.
    for (const g of got) expect(g.partition).toBe((murmur2(Buffer.from(g.key, 'utf8')) & 0x7fffffff) % 3);
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
