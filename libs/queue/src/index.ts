/**
 * @agent-warden/queue — the job queue interface (`enqueue` / `process`) with a BullMQ (Redis)
 * implementation for the stack and an in-process one for standalone mode (docs/architecture.md#two-ways-to-run).
 */
export * from './types';
export { BullMqJobQueue, type BullMqJobQueueOptions } from './bullmq';
export { InMemoryJobQueue, type InMemoryJobQueueOptions } from './memory';
export { PROCESS_DEFAULTS, DEFAULT_KEEP_COMPLETED, DEFAULT_KEEP_FAILED } from './options';
