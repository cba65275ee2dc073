import fs from 'node:fs';
import path from 'node:path';
import {
  migrate,
  MigrationChecksumMismatchError,
  MigrationFailedError,
  MigrationInFailedStateError,
  readMigrationsDir,
  sha256Hex,
} from '../src';
import {
  addMigration,
  copyMigrations,
  createTestDatabase,
  MIGRATIONS_DIR,
  runTsx,
  withClient,
} from './support/postgres';

/** Every table prisma/schema.prisma maps a model to (`@@map("…")`), sorted as pg_tables lists them. */
const TABLES = [
  ...fs
    .readFileSync(path.join(MIGRATIONS_DIR, '..', 'schema.prisma'), 'utf8')
    .matchAll(/@@map\("([^"]+)"\)/g),
]
  .map((m) => m[1]!)
  .sort();
const MIGRATIONS = readMigrationsDir(MIGRATIONS_DIR).map((m) => m.name);

describe('migrate() against PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const extraDbs: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  const freshDb = async () => {
    const extra = await createTestDatabase();
    extraDbs.push(extra);
    return extra.url;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all([db, ...extraDbs].filter(Boolean).map((d) => d.drop()));
  });

  it('applies every migration, creates the tables and records them as Prisma does', async () => {
    const { applied } = await migrate({ databaseUrl: db.url });
    expect(applied).toEqual(MIGRATIONS);

    await withClient(db.url, async (c) => {
      // Tables, not their partitions (events is partitioned by week: partitioned-events.int.test.ts).
      const tables = await c.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables t JOIN pg_class c ON c.oid = format('%I.%I', t.schemaname, t.tablename)::regclass
          WHERE schemaname = 'public' AND NOT c.relispartition ORDER BY tablename`,
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual(['_prisma_migrations', ...TABLES]);

      const indexes = await c.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'events_project_id_type_time_idx'",
      );
      expect(indexes.rows[0]?.indexdef).toContain('(project_id, type, "time" DESC)');
      const unique = await c.query(
        "SELECT 1 FROM pg_indexes WHERE indexname = 'agents_project_id_key_key' AND indexdef LIKE 'CREATE UNIQUE INDEX%'",
      );
      expect(unique.rowCount).toBe(1);

      const rows = await c.query('SELECT * FROM "_prisma_migrations" ORDER BY migration_name');
      expect(rows.rows).toHaveLength(MIGRATIONS.length);
      for (const [i, row] of rows.rows.entries()) {
        const name = MIGRATIONS[i]!;
        expect(row).toEqual({
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          checksum: sha256Hex(fs.readFileSync(path.join(MIGRATIONS_DIR, name, 'migration.sql'))),
          finished_at: expect.any(Date),
          migration_name: name,
          logs: null,
          rolled_back_at: null,
          started_at: expect.any(Date),
          applied_steps_count: 1,
        });
        expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      }
    });
  });

  it('applies nothing when run again', async () => {
    expect(await migrate({ databaseUrl: db.url })).toEqual({ applied: [] });
    await withClient(db.url, async (c) => {
      expect((await c.query('SELECT 1 FROM "_prisma_migrations"')).rowCount).toBe(MIGRATIONS.length);
    });
  });

  it('lets concurrent runs (processes and in-process) all succeed with exactly one applying', async () => {
    const url = await freshDb();
    const dir = copyMigrations();
    // a slow second migration keeps the lock held while the other runs start
    addMigration(
      dir,
      '99990101000000_slow',
      'CREATE TABLE "slow_marker" ("id" INTEGER PRIMARY KEY);\nSELECT pg_sleep(1.5);\n',
    );
    const expected = [...MIGRATIONS, '99990101000000_slow'];

    const [a, b, c] = await Promise.all([
      runTsx('libs/migrations/src/cli/migrate.ts', ['--dir', dir], { DATABASE_URL: url }),
      runTsx('libs/migrations/src/cli/migrate.ts', ['--dir', dir], { DATABASE_URL: url }),
      migrate({ databaseUrl: url, migrationsDir: dir }),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const appliedBy = [a.stdout.startsWith('Applied'), b.stdout.startsWith('Applied'), c.applied.length > 0];
    expect(appliedBy.filter(Boolean)).toHaveLength(1);
    if (c.applied.length > 0) expect(c.applied).toEqual(expected);
    else
      expect([a.stdout, b.stdout].find((s) => s.startsWith('Applied'))).toContain(
        `Applied ${expected.length} migration(s)`,
      );

    await withClient(url, async (client) => {
      const rows = await client.query(
        'SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name',
      );
      expect(rows.rows.map((r) => r.migration_name)).toEqual(expected);
    });
  }, 60_000);

  it('refuses, applying nothing, when an applied migration was changed', async () => {
    const url = await freshDb();
    const dir = copyMigrations();
    await migrate({ databaseUrl: url, migrationsDir: dir });

    const first = path.join(dir, MIGRATIONS[0]!, 'migration.sql');
    fs.appendFileSync(first, '\n-- edited after it was applied\n');
    addMigration(
      dir,
      '99990101000000_pending',
      'CREATE TABLE "pending_marker" ("id" INTEGER PRIMARY KEY);\n',
    );

    const error = await migrate({ databaseUrl: url, migrationsDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationChecksumMismatchError);
    expect(error).toMatchObject({ code: 'MIGRATION_CHECKSUM_MISMATCH', migrationNames: [MIGRATIONS[0]] });
    expect((error as Error).message).toContain('checksum mismatch');
    await withClient(url, async (c) => {
      expect((await c.query("SELECT to_regclass('pending_marker') AS t")).rows[0].t).toBeNull();
    });

    const cli = await runTsx('libs/migrations/src/cli/migrate.ts', ['--dir', dir], { DATABASE_URL: url });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('[MIGRATION_CHECKSUM_MISMATCH]');
  }, 30_000);

  it('accepts an applied migration checked out with CRLF line endings (as Prisma does)', async () => {
    const url = await freshDb();
    const dir = copyMigrations();
    await migrate({ databaseUrl: url, migrationsDir: dir });
    const first = path.join(dir, MIGRATIONS[0]!, 'migration.sql');
    fs.writeFileSync(first, fs.readFileSync(first, 'utf8').replace(/\n/g, '\r\n'));
    expect(await migrate({ databaseUrl: url, migrationsDir: dir })).toEqual({ applied: [] });
  });

  it('rolls a failing migration back, records the attempt as rolled back, and applies it once fixed', async () => {
    const url = await freshDb();
    const dir = copyMigrations();
    await migrate({ databaseUrl: url, migrationsDir: dir });
    addMigration(
      dir,
      '99990101000000_broken',
      'CREATE TABLE "half_done" ("id" INTEGER);\nSELECT * FROM "no_such_table";\n',
    );

    const error = await migrate({ databaseUrl: url, migrationsDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationFailedError);
    expect(error).toMatchObject({ code: 'MIGRATION_FAILED', migrationName: '99990101000000_broken' });
    await withClient(url, async (c) => {
      expect((await c.query("SELECT to_regclass('half_done') AS t")).rows[0].t).toBeNull();
      const attempt = await c.query(
        'SELECT finished_at, rolled_back_at, logs, applied_steps_count FROM "_prisma_migrations" WHERE migration_name = $1',
        ['99990101000000_broken'],
      );
      expect(attempt.rows).toEqual([
        {
          finished_at: null,
          rolled_back_at: expect.any(Date),
          logs: expect.stringContaining('no_such_table'),
          applied_steps_count: 0,
        },
      ]);
    });

    fs.writeFileSync(
      path.join(dir, '99990101000000_broken', 'migration.sql'),
      'CREATE TABLE "half_done" ("id" INTEGER);\n',
    );
    expect(await migrate({ databaseUrl: url, migrationsDir: dir })).toEqual({
      applied: ['99990101000000_broken'],
    });
  });

  it('refuses to run past a migration Prisma left failed (P3009)', async () => {
    const url = await freshDb();
    await migrate({ databaseUrl: url });
    await withClient(url, (c) =>
      c.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs, started_at, applied_steps_count)
               VALUES ('00000000-0000-4000-8000-000000000000', 'x', '99990101000000_failed', 'boom', now(), 0)`),
    );
    await expect(migrate({ databaseUrl: url })).rejects.toBeInstanceOf(MigrationInFailedStateError);
  });

  it('fails with the connection error when the database cannot be reached', async () => {
    await expect(migrate({ databaseUrl: 'postgresql://nobody@127.0.0.1:1/none' })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });
});
