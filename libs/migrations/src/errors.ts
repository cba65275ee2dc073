/** Stable codes of {@link MigrationError}. */
export type MigrationErrorCode =
  | 'MIGRATIONS_DIR_INVALID'
  | 'MIGRATION_CHECKSUM_MISMATCH'
  | 'MIGRATION_IN_FAILED_STATE'
  | 'MIGRATION_FAILED'
  | 'MIGRATION_LOCK_TIMEOUT';

/**
 * Base of every error `migrate()` throws on purpose. `code` is stable; `retriable` says whether
 * running `migrate()` again without changing anything can succeed.
 */
export class MigrationError extends Error {
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
    readonly retriable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The migrations directory is missing, unreadable, or a migration folder has no `migration.sql`. */
export class MigrationsDirectoryError extends MigrationError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIGRATIONS_DIR_INVALID', message, false, options);
  }
}

/**
 * An applied migration's `migration.sql` was changed after it was applied: the database was built
 * from other SQL than the file says. Nothing is applied. Restore the file (applied migrations are
 * immutable; put changes in a new migration).
 */
export class MigrationChecksumMismatchError extends MigrationError {
  constructor(readonly migrationNames: string[]) {
    super(
      'MIGRATION_CHECKSUM_MISMATCH',
      `Applied migration(s) ${migrationNames.join(', ')} differ from their migration.sql (checksum mismatch): ` +
        'restore the file(s) as applied and put changes in a new migration. Nothing was applied.',
    );
  }
}

/**
 * `_prisma_migrations` has a migration that started but neither finished nor was rolled back (left
 * by `prisma migrate deploy` failing mid-way: Prisma's P3009). Fix the database by hand, then run
 * `prisma migrate resolve --rolled-back <name>` (or `--applied <name>`).
 */
export class MigrationInFailedStateError extends MigrationError {
  constructor(readonly migrationNames: string[]) {
    super(
      'MIGRATION_IN_FAILED_STATE',
      `Migration(s) ${migrationNames.join(', ')} failed part-way earlier (Prisma P3009) and may have left the database half-changed. ` +
        'Repair the database, then mark each with `npx prisma migrate resolve --rolled-back <name>` or `--applied <name>`.',
    );
  }
}

/**
 * A migration's SQL failed. Its transaction was rolled back, so the database is as before it; the
 * attempt is recorded in `_prisma_migrations` as rolled back, with the error in `logs`.
 */
export class MigrationFailedError extends MigrationError {
  constructor(
    readonly migrationName: string,
    cause: unknown,
  ) {
    super(
      'MIGRATION_FAILED',
      `Migration ${migrationName} failed and was rolled back: ${errorMessage(cause)}`,
      false,
      { cause },
    );
  }
}

/** Another process held the migration lock for longer than `lockTimeoutMs`. Retriable. */
export class MigrationLockTimeoutError extends MigrationError {
  constructor(readonly timeoutMs: number) {
    super(
      'MIGRATION_LOCK_TIMEOUT',
      `Timed out after ${timeoutMs} ms waiting for the migration lock (pg_advisory_lock 72707369), held by another migrate run.`,
      true,
    );
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
