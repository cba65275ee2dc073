/**
 * The projector's storage: one batch of agent events and guardrail evaluation records written
 * exactly once (docs/architecture.md#exactly-once), and agents marked as seen. services/projector
 * decodes and routes Kafka records; every statement it runs is here.
 */
export { writeBatch, emptyWriteResult, touchAgents, agentSeenKey, type WriteResult } from './write-batch';
export type { ProjectedEvent } from './types';
export { pingDatabase } from './ping';
