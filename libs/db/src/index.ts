/** @agent-warden/db — Prisma client factory, repositories, migrations and embedded PostgreSQL. */
export * from './client';
export * from './projects';
export * from './agents';
export * from './approvals';
export * from './users';
export * from './api-keys';
export * from './policies';
export * from './audit';
export * from './policy-admin';
export * from './policy-queries';
export * from './project-settings';
export * from './tool-call-scan';
export * from './intelligence';
export { withProjectLock } from './policy-tx';
export * from './migrate';
export * from './embedded';
