import { defineConfig } from 'prisma/config';

/**
 * Prisma CLI configuration (Prisma 7 reads the datasource URL here, not from schema.prisma).
 * `DATABASE_URL` is only needed by commands that talk to the database.
 */
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/warden' },
});
