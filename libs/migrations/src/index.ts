/**
 * Database migrations: applies `prisma/migrations` over the `pg` driver, compatible with Prisma's
 * `_prisma_migrations` bookkeeping (see libs/db/README.md "Migrations").
 */
export { migrate, MIGRATION_ADVISORY_LOCK_KEY, type MigrateOptions, type MigrateResult } from './runner';
export {
  readMigrationsDir,
  checksumMatches,
  sha256Hex,
  DEFAULT_MIGRATIONS_DIR,
  MIGRATION_LOCK_TOML,
  type MigrationFile,
} from './directory';
export {
  MigrationError,
  MigrationsDirectoryError,
  MigrationChecksumMismatchError,
  MigrationInFailedStateError,
  MigrationFailedError,
  MigrationLockTimeoutError,
  type MigrationErrorCode,
} from './errors';
export { silentLogger, type DbLogger } from '@agent-warden/embedded-postgres';
