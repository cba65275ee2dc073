import { KafkaBus, type BusBatch, type Subscription } from '@agent-warden/bus';
import { TOPICS, type TopicMessage } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import { murmur2 } from '../libs/bus/src/partitioner';
import { randomSuffix, requireEnv } from './support/env';
import { waitFor } from './support/http';

/**
 * `KafkaBus` on the real broker: what a consumer-group member is handed, when its offsets are
 * committed, and what happens to a batch whose handler fails (libs/bus README, docs/decisions.md
 * "One Kafka client: `@platformatic/kafka`").
 */
describe('KafkaBus (real Kafka)', () => {
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const topic = TOPICS.guardrailEvaluations;
  const buses: KafkaBus[] = [];
  /** A bus on a topic of its own (3 partitions, under a random prefix). */
  const freshBus = async () => {
    const bus = new KafkaBus({
      brokers,
      clientId: 'kb-test',
      topicPrefix: `kb${randomSuffix()}.`,
      logger: silentLogger(),
      handlerRetryDelayMs: 50,
    });
    buses.push(bus);
    await bus.ensureTopics([{ topic, numPartitions: 3 }]);
    return bus;
  };
  const subscriptions: Subscription[] = [];
  let n = 0;
  const messages = (count: number) =>
    Array.from({ length: count }, () => {
      const i = n++;
      return { key: `key-${i % 7}`, value: { id: `r${i}`, i } } as unknown as TopicMessage<typeof topic>;
    });
  const subscribe = async (bus: KafkaBus, groupId: string, handler: (batch: BusBatch) => Promise<void>) => {
    const sub = await bus.subscribe({ groupId, topics: [topic], handler });
    subscriptions.push(sub);
    return sub;
  };
  const ids = (batches: BusBatch[]) =>
    batches.flatMap((b) => b.records.map((r) => (JSON.parse(r.value!) as { id: string }).id));

  afterAll(async () => {
    await Promise.all(subscriptions.map((s) => s.stop()));
    await Promise.all(buses.map((b) => b.close()));
  }, 60_000);

  test('ensureTopics creates what is missing and leaves what exists', async () => {
    const bus = await freshBus();
    await bus.ensureTopics([
      { topic, numPartitions: 3 },
      { topic: TOPICS.policyChanges, numPartitions: 1 },
    ]);
    await bus.publish(TOPICS.policyChanges, [
      { key: 'k', value: { id: 'x' } } as unknown as TopicMessage<typeof TOPICS.policyChanges>,
    ]);
    // Topics are never auto-created: a publish to one ensureTopics did not create fails.
    await expect(
      bus.publish(TOPICS.agentEventsDeadLetter, [
        { key: 'k', value: { id: 'y' } } as unknown as TopicMessage<typeof TOPICS.agentEventsDeadLetter>,
      ]),
    ).rejects.toMatchObject({ code: 'event_log_unavailable' });
  }, 30_000);

  test('a member gets every record once, in offset order per partition, on the partition of its key; a later member of the group starts after the committed ones', async () => {
    const bus = await freshBus();
    const group = `kb-${randomSuffix()}`;
    const first = messages(40);
    await bus.publish(topic, first);
    const got: BusBatch[] = [];
    const sub = await subscribe(bus, group, async (b) => void got.push(b));
    await waitFor(async () => ids(got).length >= 40, 30_000);
    expect(ids(got).sort()).toEqual(first.map((m) => (m.value as unknown as { id: string }).id).sort());
    for (const b of got) {
      expect(b.topic).toBe(topic); // the logical name, without the prefix
      for (const r of b.records) {
        expect(r.partition).toBe(b.partition);
        expect(b.partition).toBe((murmur2(Buffer.from(r.key!, 'utf8')) & 0x7fffffff) % 3);
      }
    }
    for (const p of [0, 1, 2]) {
      const offsets = got
        .filter((b) => b.partition === p)
        .flatMap((b) => b.records.map((r) => BigInt(r.offset)));
      expect(offsets).toEqual([...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(new Set(offsets).size).toBe(offsets.length);
    }
    await sub.stop();

    const later: BusBatch[] = [];
    await subscribe(bus, group, async (b) => void later.push(b));
    const second = messages(5);
    await bus.publish(topic, second);
    await waitFor(async () => ids(later).length >= 5, 30_000);
    // Only the new records: the first 40 were committed once the handler resolved.
    expect(ids(later).sort()).toEqual(second.map((m) => (m.value as unknown as { id: string }).id).sort());
  }, 90_000);

  test('a failing handler gets the same batch again until it resolves; no record is skipped', async () => {
    const bus = await freshBus();
    const group = `kb-${randomSuffix()}`;
    const failed: string[][] = [];
    const handled: BusBatch[] = [];
    await subscribe(bus, group, async (b) => {
      if (failed.length < 3) {
        failed.push(ids([b]));
        throw new Error('handler failure (test)');
      }
      handled.push(b);
    });
    const sent = messages(12);
    await bus.publish(topic, sent);
    const expected = sent.map((m) => (m.value as unknown as { id: string }).id).sort();
    await waitFor(async () => new Set(ids(handled)).size >= 12, 30_000);
    expect([...new Set(ids(handled))].sort()).toEqual(expected);
    // The batch that failed first came again, unchanged, until a call resolved.
    expect(failed).toHaveLength(3);
    const firstFailed = failed[0]!;
    const retried = [failed[1]!, failed[2]!, ...handled.map((b) => ids([b]))].find(
      (x) => x[0] === firstFailed[0],
    );
    expect(retried).toEqual(firstFailed);
  }, 60_000);

  test('records whose handler never resolved are not committed: the next member of the group gets them', async () => {
    const bus = await freshBus();
    const group = `kb-${randomSuffix()}`;
    let attempts = 0;
    const failing = await subscribe(bus, group, async () => {
      attempts += 1;
      throw new Error('handler failure (test)');
    });
    const sent = messages(6);
    await bus.publish(topic, sent);
    await waitFor(async () => attempts >= 3, 30_000);
    await failing.stop();

    const got: BusBatch[] = [];
    await subscribe(bus, group, async (b) => void got.push(b));
    await waitFor(async () => new Set(ids(got)).size >= 6, 30_000);
    expect([...new Set(ids(got))].sort()).toEqual(
      sent.map((m) => (m.value as unknown as { id: string }).id).sort(),
    );
  }, 60_000);

  test('two members of one group share the partitions; together they get every record', async () => {
    const bus = await freshBus();
    const group = `kb-${randomSuffix()}`;
    const a: BusBatch[] = [];
    const b: BusBatch[] = [];
    await subscribe(bus, group, async (x) => void a.push(x));
    // The second member's join makes the group rebalance: each member gets some of the 3 partitions.
    await subscribe(bus, group, async (x) => void b.push(x));
    // key-0 … key-6 land on all three partitions, so each member has records to handle.
    const sent = messages(70);
    await bus.publish(topic, sent);
    const expected = sent.map((m) => (m.value as unknown as { id: string }).id).sort();
    await waitFor(async () => new Set([...ids(a), ...ids(b)]).size >= 70, 30_000);
    expect([...new Set([...ids(a), ...ids(b)])].sort()).toEqual(expected);
    expect(ids(a).length).toBeGreaterThan(0);
    expect(ids(b).length).toBeGreaterThan(0);
  }, 60_000);
});
