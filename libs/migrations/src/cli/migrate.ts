/**
 * `npm run db:migrate`: applies the pending migrations of prisma/migrations to `DATABASE_URL`.
 *
 *   DATABASE_URL=postgresql://user@host:5432/db npm run db:migrate [-- --dir <migrations dir>]
 *   node libs/migrations/src/cli/migrate.js     (in the production image; DATABASE_URL_FILE works too)
 *
 * Exit code 0 when the database is up to date afterwards, 1 on any error (the message says why).
 */
import { ConfigError, parseEnv } from '@agent-warden/config';
import { z } from 'zod';
import { migrate, MigrationError } from '../index';
import { consoleLogger } from './console-logger';

async function main(): Promise<number> {
  let databaseUrl: string | undefined;
  try {
    // DATABASE_URL, or DATABASE_URL_FILE naming a file that holds it (a Docker / Kubernetes secret).
    databaseUrl = parseEnv(z.object({ DATABASE_URL: z.string().optional() })).DATABASE_URL;
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    return 1;
  }
  if (!databaseUrl) {
    process.stderr.write(
      'DATABASE_URL is not set: export the PostgreSQL connection string to migrate, e.g. postgresql://warden@127.0.0.1:5432/warden\n',
    );
    return 1;
  }
  const dirFlag = process.argv.indexOf('--dir');
  const migrationsDir = dirFlag > 0 ? process.argv[dirFlag + 1] : undefined;
  try {
    const { applied } = await migrate({ databaseUrl, migrationsDir, logger: consoleLogger() });
    process.stdout.write(
      applied.length > 0
        ? `Applied ${applied.length} migration(s): ${applied.join(', ')}\n`
        : 'No pending migrations: the database is up to date.\n',
    );
    return 0;
  } catch (error) {
    const code = error instanceof MigrationError ? ` [${error.code}]` : '';
    process.stderr.write(
      `Migration failed${code}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

void main().then((code) => process.exit(code));
