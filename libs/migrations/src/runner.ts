import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { checksumMatches, DEFAULT_MIGRATIONS_DIR, readMigrationsDir, type MigrationFile } from './directory';
import {
  errorMessage,
  MigrationChecksumMismatchError,
  MigrationFailedError,
  MigrationInFailedStateError,
  MigrationLockTimeoutError,
} from './errors';
import { silentLogger, type DbLogger } from '@agent-warden/embedded-postgres';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * PostgreSQL connection string. A `?schema=name` parameter (Prisma's convention) selects the
   * schema that holds the tables and `_prisma_migrations`; it is created when missing. Default `public`.
   */
  databaseUrl: string;
  /** Prisma migrations directory; default `prisma/migrations` of this repository. */
  migrationsDir?: string;
  /** Structured logger (pino-compatible); silent by default. */
  logger?: DbLogger;
  /** How long to wait for another process's migration run to finish, in ms; default 120 000. */
  lockTimeoutMs?: number;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Names of the migrations applied by this call, in order; empty when the database was up to date. */
  applied: string[];
}

/**
 * The advisory lock key Prisma's schema engine takes for `migrate deploy` / `migrate dev`, so this
 * runner and Prisma's never migrate the same database at once.
 */
export const MIGRATION_ADVISORY_LOCK_KEY = 72707369;

const LOCK_POLL_MS = 250;

/** The table exactly as Prisma's schema engine creates it (PostgreSQL flavour). */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Runs of `migrate()` in this process, per database URL (PGlite's one session cannot exclude itself). */
const runsInProcess = new Map<string, Promise<unknown>>();

/**
 * Applies the migrations of `migrationsDir` that the database has not applied yet, in name order,
 * each in its own transaction, and records each in Prisma's `_prisma_migrations` table with the
 * values Prisma's engine writes (random UUID id, SHA-256 hex checksum of the file, started_at,
 * finished_at, applied_steps_count = 1, logs and rolled_back_at NULL). `prisma migrate deploy` and
 * `prisma migrate status` therefore see these migrations as applied, and vice versa.
 *
 * Safe to run from several processes at once: the run holds the PostgreSQL session advisory lock
 * {@link MIGRATION_ADVISORY_LOCK_KEY} (the one Prisma's engine takes), and the others wait for it,
 * then find nothing left to apply. Runs in one process against one URL are queued as well.
 *
 * Works over the `pg` driver against PostgreSQL and against embedded PGlite (pglite-socket); it
 * uses one connection and closes it before returning.
 *
 * A migration must not contain its own `BEGIN`/`COMMIT` nor statements that cannot run in a
 * transaction (`CREATE INDEX CONCURRENTLY`, `ALTER TYPE … ADD VALUE` before PostgreSQL 12).
 *
 * @throws {MigrationsDirectoryError} the directory or a `migration.sql` cannot be read
 * @throws {MigrationChecksumMismatchError} an applied migration's file changed; nothing applied
 * @throws {MigrationInFailedStateError} a migration was left failed by Prisma (P3009); nothing applied
 * @throws {MigrationFailedError} a migration's SQL failed; it was rolled back, later ones not run
 * @throws {MigrationLockTimeoutError} another run held the lock longer than `lockTimeoutMs`
 * @throws the `pg` connection error when the database cannot be reached
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const migrations = readMigrationsDir(options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const previous = runsInProcess.get(options.databaseUrl) ?? Promise.resolve();
  const run = previous.catch(() => {}).then(() => migrateExclusive(options, migrations));
  runsInProcess.set(options.databaseUrl, run);
  try {
    return await run;
  } finally {
    if (runsInProcess.get(options.databaseUrl) === run) runsInProcess.delete(options.databaseUrl);
  }
}

async function migrateExclusive(
  options: MigrateOptions,
  migrations: MigrationFile[],
): Promise<MigrateResult> {
  const logger = options.logger ?? silentLogger;
  const started = Date.now();
  const { connectionString, schema } = splitSchemaParam(options.databaseUrl);
  const client = new pg.Client({ connectionString, application_name: 'agent-warden-migrate' });
  client.on('error', (error) => logger.warn({ err: error }, 'migration connection error'));
  await client.connect();
  try {
    if (schema) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    }
    await acquireLock(client, options.lockTimeoutMs ?? 120_000, logger);
    try {
      const applied = await applyPending(client, migrations, logger);
      logger.info(
        { applied, total: migrations.length, ms: Date.now() - started },
        applied.length ? 'migrations applied' : 'database schema up to date',
      );
      return { applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}

async function applyPending(
  client: pg.Client,
  migrations: MigrationFile[],
  logger: DbLogger,
): Promise<string[]> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  const { rows } = await client.query<MigrationRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
  );
  const failed = rows
    .filter((row) => row.finished_at === null && row.rolled_back_at === null)
    .map((row) => row.migration_name);
  if (failed.length > 0) throw new MigrationInFailedStateError(failed);

  const appliedChecksums = new Map(
    rows
      .filter((row) => row.finished_at !== null && row.rolled_back_at === null)
      .map((row) => [row.migration_name, row.checksum]),
  );
  const edited = migrations.filter(
    (m) => appliedChecksums.has(m.name) && !checksumMatches(m.sql, appliedChecksums.get(m.name)!),
  );
  if (edited.length > 0) throw new MigrationChecksumMismatchError(edited.map((m) => m.name));

  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...appliedChecksums.keys()].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    logger.warn(
      { migrations: unknown },
      'database has migrations that are not in the migrations directory (newer code migrated it?)',
    );
  }
  const pending = migrations.filter((m) => !appliedChecksums.has(m.name));
  const lastApplied = [...appliedChecksums.keys()]
    .filter((name) => known.has(name))
    .sort()
    .pop();
  const outOfOrder = pending
    .filter((m) => lastApplied !== undefined && m.name < lastApplied)
    .map((m) => m.name);
  if (outOfOrder.length > 0) {
    logger.warn(
      { migrations: outOfOrder, lastApplied },
      'applying migrations older than the last applied one (merged branches?)',
    );
  }

  const applied: string[] = [];
  for (const migration of pending) {
    await applyOne(client, migration, logger);
    applied.push(migration.name);
  }
  return applied;
}

async function applyOne(client: pg.Client, migration: MigrationFile, logger: DbLogger): Promise<void> {
  const startedAt = new Date();
  logger.info({ migration: migration.name }, 'applying migration');
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
       VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    logger.error({ migration: migration.name, err: error }, 'migration failed; rolled back');
    // Keep the attempt as an audit trail, marked rolled back so Prisma and this runner ignore it.
    await client
      .query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
         VALUES ($1, $2, NULL, $3, $4, clock_timestamp(), $5, 0)`,
        [randomUUID(), migration.checksum, migration.name, failureLog(error), startedAt],
      )
      .catch((recordError) => logger.warn({ err: recordError }, 'could not record the failed migration'));
    throw new MigrationFailedError(migration.name, error);
  }
}

async function acquireLock(client: pg.Client, timeoutMs: number, logger: DbLogger): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let waiting = false;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      MIGRATION_ADVISORY_LOCK_KEY,
    ]);
    if (rows[0]?.locked) {
      if (waiting) logger.info({}, 'migration lock acquired');
      return;
    }
    if (Date.now() >= deadline) throw new MigrationLockTimeoutError(timeoutMs);
    if (!waiting) logger.info({ timeoutMs }, 'another process is migrating; waiting for the migration lock');
    waiting = true;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

function failureLog(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return `${errorMessage(error)}${typeof code === 'string' ? `\n\nDatabase error code: ${code}` : ''}\n\nApplied by @agent-warden/db migrate() in a transaction: rolled back, nothing of it remains.`;
}

/** Removes Prisma's `schema` parameter (which `pg` does not know) from a connection string. */
function splitSchemaParam(databaseUrl: string): { connectionString: string; schema?: string } {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { connectionString: databaseUrl };
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  if (!schema) return { connectionString: databaseUrl };
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
