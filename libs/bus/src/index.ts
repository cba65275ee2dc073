/** @agent-warden/bus — the event bus interface with Kafka and in-process implementations. */
export * from './types';
export { KafkaBus, type KafkaBusOptions } from './kafka';
export { InMemoryBus } from './memory';
export { KafkaPublisherThread, type PublisherThreadOptions } from './publisher-thread';
export { SendCoalescer } from './coalescer';
export { KafkaConsumerLag, type KafkaConsumerLagOptions } from './consumer-lag';
