import path from 'node:path';
import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { createTestDatabase } from './database';
import { startStandalone } from './standalone';

/** `npm start`'s process on a PostgreSQL database of its own, with a Prisma client to read rows back. */
export interface StandaloneOnPostgres {
  url: string;
  prisma: PrismaClient;
  /** Stops the process, closes the client and drops the database. */
  stop(): Promise<void>;
}

/**
 * Creates a fresh test database, starts standalone on it with `apiKey` as its first key, its
 * files under `<dataDir>/warden` and the variables of `env`, and opens a small Prisma client on the
 * same database. Throws when the database cannot be created or the process does not become ready.
 */
export async function startStandaloneOnPostgres(
  dataDir: string,
  apiKey: string,
  env: Record<string, string> = {},
): Promise<StandaloneOnPostgres> {
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { poolMax: 2 });
  const s = await startStandalone({
    DATABASE_URL: db.url,
    WARDEN_DATA_DIR: path.join(dataDir, 'warden'),
    WARDEN_INIT_API_KEY: apiKey,
    ...env,
  });
  return {
    url: s.url,
    prisma,
    stop: async () => {
      await s.stop();
      await prisma.$disconnect();
      await db.drop();
    },
  };
}
