/**
 * @agent-warden/contracts — the single source of truth for wire bodies, event types, topics and
 * the CloudEvents mapping (docs/architecture.md#contracts). Everything here is pure: no I/O.
 */
export * from './common';
export * from './json-safety';
export * from './identify';
export * from './events';
export * from './scores';
export * from './llm';
export * from './llm-pricing';
export * from './llm-api';
export * from './ingest';
export * from './guard';
export * from './provenance';
export * from './policy';
export * from './policy-api';
export * from './problem';
export * from './cloudevents';
export * from './topics';
export * from './evaluation-record';
export * from './read';
export * from './dashboard-api';
export * from './ids';
export { buildOpenApiDocument } from './openapi';
export * from './queues';
export * from './intelligence';
export * from './analysis';
export * from './auth';
export * from './approvals-inbox';
export * from './instruction-detector';
export * from './version-comparison';
export * from './webhooks';
export * from './data-lifecycle';
