/**
 * Migration authoring tools, driven by Prisma's real schema engine in WebAssembly (offline; see
 * libs/db/README.md "Migrations"):
 *
 *   tsx libs/migrations/src/cli/migrations.ts create <name>   write prisma/migrations/<UTC timestamp>_<name>/migration.sql
 *                                                     with what prisma/schema.prisma adds to the migrations
 *                                                     (= `prisma migrate dev --create-only`); nothing when no change
 *   tsx libs/migrations/src/cli/migrations.ts check           exit 1, printing the missing SQL, when schema.prisma has
 *                                                     changes no migration holds (drift); exit 0 otherwise
 *   tsx libs/migrations/src/cli/migrations.ts status          the engine's view of DATABASE_URL's history
 *                                                     (= `prisma migrate status`); exit 1 unless up to date
 *   tsx libs/migrations/src/cli/migrations.ts sql             print the SQL creating the schema on an empty database
 *   tsx libs/migrations/src/cli/migrations.ts deploy          apply pending migrations to DATABASE_URL with Prisma's engine
 *                                                     (= `prisma migrate deploy`); for interoperability checks
 *
 * Options: --schema <schema.prisma>, --dir <migrations dir>, --json (status: print the raw diagnosis).
 * `create`, `check` and `sql` need no database: the engine works on in-memory PGlite databases.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MIGRATIONS_DIR, MIGRATION_LOCK_TOML } from '../directory';
import { lastEnginePanic, openSchemaEngine, type SchemaEngineSession } from '../engine';

const USAGE =
  'usage: migrations.ts create <name> | check | status | sql | deploy  [--schema <schema.prisma>] [--dir <migrations dir>] [--json]';

async function main(argv: string[]): Promise<number> {
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') flags.set('json', true);
    else if (arg === '--schema' || arg === '--dir') flags.set(arg.slice(2), argv[++i] ?? '');
    else positional.push(arg);
  }
  const [command, name] = positional;
  const schemaPath =
    typeof flags.get('schema') === 'string' ? path.resolve(flags.get('schema') as string) : undefined;
  const migrationsDir =
    typeof flags.get('dir') === 'string' ? path.resolve(flags.get('dir') as string) : DEFAULT_MIGRATIONS_DIR;

  switch (command) {
    case 'create': {
      if (!name) return fail(`create needs a migration name\n${USAGE}`);
      return withEngine({ schemaPath, migrationsDir }, async (engine) => {
        const sql = await engine.diffMigrationsToSchema();
        if (!sql) {
          process.stdout.write('No changes: the migrations already produce prisma/schema.prisma.\n');
          return 0;
        }
        const folder = `${timestamp()}_${slug(name)}`;
        fs.mkdirSync(path.join(migrationsDir, folder), { recursive: true });
        fs.writeFileSync(path.join(migrationsDir, folder, 'migration.sql'), sql);
        const lockPath = path.join(migrationsDir, 'migration_lock.toml');
        if (!fs.existsSync(lockPath)) fs.writeFileSync(lockPath, MIGRATION_LOCK_TOML);
        process.stdout.write(
          `Created ${path.relative(process.cwd(), path.join(migrationsDir, folder, 'migration.sql'))} (engine ${engine.engineVersion}).\nReview it, then apply with: npm run db:migrate\n`,
        );
        return 0;
      });
    }
    case 'check':
      return withEngine({ schemaPath, migrationsDir }, async (engine) => {
        const sql = await engine.diffMigrationsToSchema();
        if (!sql) {
          process.stdout.write('OK: the migrations produce prisma/schema.prisma exactly.\n');
          return 0;
        }
        process.stdout.write(
          `Drift: prisma/schema.prisma has changes that no migration holds. Create one with\n  npm run db:migration:create -- <name>\nMissing SQL:\n\n${sql}`,
        );
        return 1;
      });
    case 'status': {
      const databaseUrl = process.env.DATABASE_URL;
      if (!databaseUrl) return fail('status needs DATABASE_URL');
      return withEngine({ schemaPath, migrationsDir, databaseUrl }, async (engine) => {
        const diagnosis = await engine.diagnoseHistory();
        const upToDate =
          diagnosis.history === null &&
          diagnosis.failedMigrationNames.length === 0 &&
          diagnosis.editedMigrationNames.length === 0;
        if (flags.has('json')) process.stdout.write(`${JSON.stringify(diagnosis)}\n`);
        else
          process.stdout.write(
            upToDate ? 'Database schema is up to date.\n' : `Not up to date: ${JSON.stringify(diagnosis)}\n`,
          );
        return upToDate ? 0 : 1;
      });
    }
    case 'deploy': {
      const databaseUrl = process.env.DATABASE_URL;
      if (!databaseUrl) return fail('deploy needs DATABASE_URL');
      return withEngine({ schemaPath, migrationsDir, databaseUrl }, async (engine) => {
        const applied = await engine.deployMigrations();
        process.stdout.write(
          flags.has('json')
            ? `${JSON.stringify({ applied })}\n`
            : `Applied with Prisma's engine: ${applied.join(', ') || '(nothing)'}\n`,
        );
        return 0;
      });
    }
    case 'sql':
      return withEngine({ schemaPath, migrationsDir }, async (engine) => {
        process.stdout.write(await engine.diffEmptyToSchema());
        return 0;
      });
    default:
      return fail(USAGE);
  }
}

async function withEngine(
  options: Parameters<typeof openSchemaEngine>[0],
  run: (engine: SchemaEngineSession) => Promise<number>,
): Promise<number> {
  const engine = await openSchemaEngine(options);
  try {
    return await run(engine);
  } finally {
    await engine.close();
  }
}

/** Prisma's migration folder timestamp: UTC `YYYYMMDDHHMMSS`. */
function timestamp(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 14);
}

/** Prisma-style migration name: lower case, `_` between words, at most 200 characters. */
function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 200) || 'migration'
  );
}

function fail(message: string): number {
  process.stderr.write(`${message}\n`);
  return 2;
}

function crash(error: unknown): never {
  const panic = lastEnginePanic();
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${panic ? `Prisma schema engine panic: ${panic}\n` : ''}`,
  );
  process.exit(1);
}

process.on('uncaughtException', crash);
main(process.argv.slice(2)).then((code) => process.exit(code), crash);
