/** @agent-warden/db — Prisma client factory, repositories, migrations and embedded PostgreSQL. */
export * from './client';
export * from './projects';
export * from './agents';
export * from './approvals';
export * from './policies';
export * from './migrate';
export * from './embedded';
