import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate, readMigrationsDir } from '../src';
import {
  copyMigrations,
  createTestDatabase,
  MIGRATIONS_DIR,
  REPO_ROOT,
  runTsx,
  withClient,
} from './support/postgres';

// Prisma's real schema engine (WebAssembly) through libs/migrations/src/cli/migrations.ts, run with tsx in a
// child process: the engine's JS glue is an ES module, which Jest's CommonJS sandbox cannot load.
const CLI = 'libs/migrations/src/cli/migrations.ts';
const MIGRATIONS = readMigrationsDir(MIGRATIONS_DIR).map((m) => m.name);
const TIMEOUT = 120_000;

/** A copy of prisma/schema.prisma with one more column on Project. */
function schemaWithExtraColumn(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-schema-'));
  const file = path.join(dir, 'schema.prisma');
  const schema = fs.readFileSync(path.join(REPO_ROOT, 'prisma/schema.prisma'), 'utf8');
  const changed = schema.replace('model Project {\n', 'model Project {\n  extra String?\n');
  expect(changed).not.toBe(schema);
  fs.writeFileSync(file, changed);
  return file;
}

describe('Prisma schema engine (wasm): drift and interoperability', () => {
  const dbs: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  const freshDb = async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    return db.url;
  };
  afterAll(async () => {
    await Promise.all(dbs.map((db) => db.drop()));
  });

  it(
    'the migrations reproduce prisma/schema.prisma exactly (no drift)',
    async () => {
      const result = await runTsx(CLI, ['check']);
      expect(result.stderr).toBe('');
      expect(result).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('OK: the migrations produce prisma/schema.prisma exactly'),
      });
    },
    TIMEOUT,
  );

  it(
    'reports drift, with the missing SQL, when the schema has a change no migration holds',
    async () => {
      const result = await runTsx(CLI, ['check', '--schema', schemaWithExtraColumn()]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('ALTER TABLE "projects" ADD COLUMN     "extra" TEXT;');
    },
    TIMEOUT,
  );

  it(
    'creates the next migration offline, which migrate() then applies',
    async () => {
      const schema = schemaWithExtraColumn();
      const dir = copyMigrations();
      const created = await runTsx(CLI, ['create', 'Add project extra', '--schema', schema, '--dir', dir]);
      expect(created.code).toBe(0);
      const added = fs
        .readdirSync(dir)
        .filter((name) => !MIGRATIONS.includes(name) && name !== 'migration_lock.toml');
      expect(added).toEqual([expect.stringMatching(/^\d{14}_add_project_extra$/)]);
      expect(fs.readFileSync(path.join(dir, added[0]!, 'migration.sql'), 'utf8')).toContain(
        'ADD COLUMN     "extra" TEXT',
      );

      expect((await runTsx(CLI, ['check', '--schema', schema, '--dir', dir])).code).toBe(0);
      const url = await freshDb();
      // In name order: a migration named for a later time of day (as teams do to order merged
      // branches) sorts after the one just created.
      expect(await migrate({ databaseUrl: url, migrationsDir: dir })).toEqual({
        applied: [...MIGRATIONS, added[0]].sort(),
      });
    },
    TIMEOUT,
  );

  it(
    "Prisma's engine sees what migrate() applied as applied, and an edited file as edited",
    async () => {
      const url = await freshDb();
      const dir = copyMigrations();
      await migrate({ databaseUrl: url, migrationsDir: dir });

      const status = await runTsx(CLI, ['status', '--json', '--dir', dir], { DATABASE_URL: url });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toEqual({
        editedMigrationNames: [],
        failedMigrationNames: [],
        hasMigrationsTable: true,
        history: null,
      });

      fs.appendFileSync(path.join(dir, MIGRATIONS[0]!, 'migration.sql'), '\n-- edited\n');
      const edited = await runTsx(CLI, ['status', '--json', '--dir', dir], { DATABASE_URL: url });
      expect(edited.code).toBe(1);
      expect(JSON.parse(edited.stdout)).toMatchObject({ editedMigrationNames: [MIGRATIONS[0]] });
    },
    TIMEOUT,
  );

  it(
    "migrate() sees what Prisma's engine applied (`migrate deploy`) as applied",
    async () => {
      const url = await freshDb();
      const deployed = await runTsx(CLI, ['deploy', '--json'], { DATABASE_URL: url });
      expect(deployed.code).toBe(0);
      expect(JSON.parse(deployed.stdout)).toEqual({ applied: MIGRATIONS });

      expect(await migrate({ databaseUrl: url })).toEqual({ applied: [] });
      await withClient(url, async (c) => {
        const rows = await c.query(
          'SELECT migration_name, logs, rolled_back_at, applied_steps_count, finished_at IS NOT NULL AS finished FROM "_prisma_migrations" ORDER BY migration_name',
        );
        expect(rows.rows).toEqual(
          MIGRATIONS.map((name) => ({
            migration_name: name,
            logs: null,
            rolled_back_at: null,
            applied_steps_count: 1,
            finished: true,
          })),
        );
      });
    },
    TIMEOUT,
  );
});
