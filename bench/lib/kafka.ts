import { Admin, ProduceAcks, Producer, stringSerializers } from '@platformatic/kafka';
import { KafkaBus } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import { javaCompatiblePartitioner } from '../../libs/bus/src/partitioner';
import type { WireRecord } from './workload';

/**
 * Creates the event topics under `prefix` through the code's own `KafkaBus.ensureTopics`
 * (auto topic creation is off on the broker). The prefix is random; {@link deleteTopics} removes them.
 */
export async function createTopics(brokers: string[], prefix: string, partitions: number): Promise<void> {
  const bus = new KafkaBus({ brokers, clientId: 'bench-admin', logger: silentLogger(), topicPrefix: prefix });
  try {
    await bus.ensureTopics([
      { topic: TOPICS.agentEvents, numPartitions: partitions },
      { topic: TOPICS.agentEventsDeadLetter, numPartitions: 1 },
      { topic: TOPICS.guardrailEvaluations, numPartitions: partitions },
    ]);
  } finally {
    await bus.close();
  }
}

/**
 * Deletes the topics whose name starts with `prefix` (a run's pre-loaded topics: tens of MB each,
 * which the shared broker would otherwise keep on its disk). Throws when Kafka cannot be reached.
 */
export async function deleteTopics(brokers: string[], prefix: string): Promise<void> {
  const admin = new Admin({ clientId: 'bench-admin', bootstrapBrokers: brokers, connectTimeout: 3_000 });
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.close();
  }
}

/** A plain `@platformatic/kafka` producer configured like the gateway's (libs/bus/src/platformatic-publisher.ts). */
export interface BareProducer {
  /** One `producer.send` of `records` with `acks: -1`. */
  send(topic: string, records: WireRecord[]): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Connects a bare `@platformatic/kafka` producer with the gateway's settings (idempotent,
 * `acks: -1`, no auto topic creation, the Java client's placement of keys, the same timeouts and
 * bounded retries). No coalescing, no deadline, no JSON work: records are sent as given.
 */
export async function connectBareProducer(brokers: string[], clientId = 'bench-bare'): Promise<BareProducer> {
  const producer = new Producer({
    clientId,
    bootstrapBrokers: brokers,
    serializers: stringSerializers,
    idempotent: true,
    acks: ProduceAcks.ALL,
    autocreateTopics: false,
    partitioner: javaCompatiblePartitioner,
    connectTimeout: 3_000,
    timeout: 10_000,
    retries: 3,
    retryDelay: 100,
  });
  // Connects and obtains the producer id before the measured sends.
  await producer.initIdempotentProducer({});
  return {
    send: async (topic, records) => {
      await producer.send({ messages: records.map((r) => ({ topic, key: r.key, value: r.value })) });
    },
    disconnect: () => producer.close(),
  };
}
