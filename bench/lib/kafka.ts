import { Kafka, logLevel, type Producer } from 'kafkajs';
import { KafkaBus } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import type { WireRecord } from './workload';

/**
 * Creates the event topics under `prefix` through the code's own `KafkaBus.ensureTopics`
 * (auto topic creation is off on the broker). Topics stay after the run; the prefix is random.
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

/** A plain kafkajs producer configured like the gateway's (libs/bus/src/kafka.ts). */
export interface BareProducer {
  /** One `producer.send` of `records` with `acks: -1`. */
  send(topic: string, records: WireRecord[]): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Connects a bare kafkajs producer with the gateway's settings: the same client options
 * (timeouts, retry) and producer options (idempotent, one request in flight, no auto topic
 * creation, bounded retries); sends use `acks: -1`. No coalescing, no JSON work: records are
 * sent as given.
 */
export async function connectBareProducer(brokers: string[], clientId = 'bench-bare'): Promise<BareProducer> {
  const kafka = new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    logLevel: logLevel.WARN,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
  });
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 },
  });
  await producer.connect();
  return {
    send: async (topic, records) => {
      await producer.send({ topic, acks: -1, messages: records });
    },
    disconnect: () => producer.disconnect(),
  };
}
