import { Client } from 'pg';
import { migrate } from '@agent-warden/migrations';
import { randomSuffix, requireEnv } from './env';

/** A fresh, migrated database for one test file, and how to drop it. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * Creates `warden_test_<random>` on the server of `DATABASE_URL` and applies the migrations
 * (docs/conventions.md#tests: a fresh database per test file). Throws when PostgreSQL is unreachable.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = requireEnv('DATABASE_URL');
  const name = `warden_test_${randomSuffix()}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  await migrate({ databaseUrl: url });
  return {
    url,
    name,
    drop: async () => {
      const c = new Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
