/** @agent-warden/bus — the event bus interface with Kafka and in-process implementations. */
export * from './types';
export { KafkaBus, type KafkaBusOptions } from './kafka';
export { InMemoryBus } from './memory';
export { SendCoalescer } from './coalescer';
