/**
 * @agent-warden/db — data access: the Prisma client factory and the repositories (every query of the
 * service). Migrations are `@agent-warden/migrations`; the embedded PostgreSQL of `npm start` is
 * `@agent-warden/embedded-postgres`.
 */
export * from './client';
export * from './projects';
export * from './agents';
export * from './approvals';
export * from './users';
export * from './members';
export * from './project-admin';
export * from './api-keys';
export * from './policies';
export * from './audit';
export * from './policy-admin';
export * from './policy-queries';
export * from './project-settings';
export * from './tool-call-scan';
export * from './session-search';
export * from './event-search';
export * from './agent-detail';
export * from './session-reads';
export * from './projection';
export * from './otlp-sequences';
export * from './guardrail-stats';
export * from './intelligence';
export * from './evaluations';
export * from './scores';
export * from './evaluator-scores';
export * from './llm-calls';
export { withProjectLock } from './policy-tx';
export * from './version-comparison';
export * from './webhooks';
export * from './telemetry-deletion';
export * from './event-partitions';
export * from './retention';
