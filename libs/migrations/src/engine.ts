import fs from 'node:fs';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type {
  DiagnoseMigrationHistoryOutput,
  MigrationList,
  SchemaEngine,
} from '@prisma/schema-engine-wasm/schema_engine_bg';
import { startEmbeddedPostgres } from '@agent-warden/embedded-postgres';
import { DEFAULT_MIGRATIONS_DIR, MIGRATION_LOCK_TOML } from './directory';

/**
 * Prisma's real schema engine (migration diffing, history diagnosis), run as WebAssembly over a
 * driver adapter: no native binary, no download, works offline. Development tooling only (the
 * `db:migration:*` commands and tests); the application applies migrations with `migrate()`.
 *
 * The engine is `node_modules/prisma/build/schema_engine_bg.wasm` (the very engine of the
 * installed Prisma CLI) driven by the JS glue of `@prisma/schema-engine-wasm`; when the two stop
 * fitting (a Prisma upgrade), the package's own wasm is used instead. Shadow databases, which the
 * engine needs to replay the migrations, are in-memory PGlite instances, never databases on your
 * server.
 */

/** `prisma/schema.prisma` of this repository. */
export const DEFAULT_SCHEMA_PATH = path.resolve(__dirname, '../../../prisma/schema.prisma');

/** Options of {@link openSchemaEngine}. */
export interface SchemaEngineOptions {
  /** Database the engine connects to (status, drift of a live database). Omitted: an in-memory PGlite. */
  databaseUrl?: string;
  /** Prisma schema; default `prisma/schema.prisma`. */
  schemaPath?: string;
  /** Prisma migrations directory; default `prisma/migrations`. */
  migrationsDir?: string;
}

/** A connected schema engine. Call `close()` when done. */
export interface SchemaEngineSession {
  /** Git hash of the engine build in use (Prisma 7.10.1's engines are `d1b3f377…`). */
  engineVersion: string;
  /**
   * SQL that takes a database built by the migrations to the schema, as `prisma migrate diff
   * --from-migrations <dir> --to-schema <schema> --script` prints it (and as `prisma migrate dev
   * --create-only` would write it). Empty string: the migrations reproduce the schema exactly.
   */
  diffMigrationsToSchema(): Promise<string>;
  /** SQL that creates the schema on an empty database (`prisma migrate diff --from-empty --to-schema`). */
  diffEmptyToSchema(): Promise<string>;
  /** The engine's view of `databaseUrl`'s migration history: what `prisma migrate status` reports. */
  diagnoseHistory(): Promise<DiagnoseMigrationHistoryOutput>;
  /**
   * Applies the pending migrations to `databaseUrl` with Prisma's engine, as `prisma migrate
   * deploy` does (no transaction per migration). For interoperability checks; use `migrate()`.
   * @returns the names applied
   */
  deployMigrations(): Promise<string[]>;
  /** Disconnects and stops the in-memory databases. */
  close(): Promise<void>;
}

/**
 * Loads the schema engine (once per process) and connects it.
 * @throws when the engine cannot load or connect; engine errors carry Prisma's message
 */
export async function openSchemaEngine(options: SchemaEngineOptions = {}): Promise<SchemaEngineSession> {
  const { glue, version } = await loadEngineModule();
  const schemaPath = options.schemaPath ?? DEFAULT_SCHEMA_PATH;
  const migrationsDir = options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR;
  const schema = fs.readFileSync(schemaPath, 'utf8');
  const schemaFiles = [{ path: path.basename(schemaPath), content: schema }];
  const factory = new ScratchAdapterFactory(options.databaseUrl);
  const filters = { externalTables: [], externalEnums: [] };
  let engine: SchemaEngine;
  try {
    engine = await glue.SchemaEngine.new(
      { datamodels: schemaFiles.map((f) => [f.path, f.content]) },
      () => {},
      bindMigrationAwareSqlAdapterFactory(factory),
    );
  } catch (error) {
    await factory.close();
    throw error;
  }
  return {
    engineVersion: version,
    async diffMigrationsToSchema() {
      const result = await engine.diff({
        from: { tag: 'migrations', ...migrationList(migrationsDir) },
        to: { tag: 'schemaDatamodel', files: schemaFiles },
        script: true,
        exitCode: null,
        filters,
      });
      return isEmptyScript(result.stdout) ? '' : (result.stdout ?? '');
    },
    async diffEmptyToSchema() {
      const result = await engine.diff({
        from: { tag: 'empty' },
        to: { tag: 'schemaDatamodel', files: schemaFiles },
        script: true,
        exitCode: null,
        filters,
      });
      return result.stdout ?? '';
    },
    diagnoseHistory() {
      return engine.diagnoseMigrationHistory({
        migrationsList: migrationList(migrationsDir),
        optInToShadowDatabase: false,
        filters,
      });
    },
    async deployMigrations() {
      const result = await engine.applyMigrations({ migrationsList: migrationList(migrationsDir), filters });
      return result.appliedMigrationNames;
    },
    async close() {
      engine.free();
      await factory.close();
    },
  };
}

/** The engine prints only a comment when there is nothing to do. */
function isEmptyScript(stdout: string | null): boolean {
  return !stdout || stdout.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('--'));
}

/** The migrations directory as the engine reads it (what the Prisma CLI passes). */
export function migrationList(dir: string): MigrationList {
  const lockPath = path.join(dir, 'migration_lock.toml');
  const names = fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
    : [];
  return {
    baseDir: dir,
    lockfile: {
      path: 'migration_lock.toml',
      content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : MIGRATION_LOCK_TOML,
    },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => {
      const file = path.join(dir, name, 'migration.sql');
      let content: { tag: 'ok'; value: string } | { tag: 'error'; value: string };
      try {
        content = { tag: 'ok', value: fs.readFileSync(file, 'utf8') };
      } catch (error) {
        content = { tag: 'error', value: String(error) };
      }
      return { path: name, migrationFile: { path: 'migration.sql', content } };
    }),
  };
}

/**
 * Adapter factory for the engine: the main connection goes to `databaseUrl` (or a fresh in-memory
 * PGlite), every shadow database is a fresh in-memory PGlite, stopped when the engine disposes it.
 */
class ScratchAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  private readonly open = new Set<SqlDriverAdapter>();

  constructor(private readonly databaseUrl?: string) {}

  connect(): Promise<SqlDriverAdapter> {
    return this.databaseUrl ? this.track(engineAdapter(this.databaseUrl)) : this.connectToShadowDb();
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const scratch = await startEmbeddedPostgres({ dataDir: 'memory://' });
    try {
      const adapter = await engineAdapter(scratch.url);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await scratch.stop();
      };
      return this.track(Promise.resolve(adapter));
    } catch (error) {
      await scratch.stop();
      throw error;
    }
  }

  async close(): Promise<void> {
    const adapters = [...this.open];
    this.open.clear();
    await Promise.all(adapters.map((adapter) => adapter.dispose().catch(() => {})));
  }

  private async track(connecting: Promise<SqlDriverAdapter>): Promise<SqlDriverAdapter> {
    const adapter = await connecting;
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      if (!this.open.delete(adapter)) return;
      await dispose();
    };
    this.open.add(adapter);
    return adapter;
  }
}

/**
 * One-connection `@prisma/adapter-pg` adapter for the engine that types columns of PostgreSQL's
 * internal `"char"` type (OID 18) as the engine expects. `@prisma/adapter-pg` 7.10 cannot map
 * `"char"` ("Column type 'char' could not be deserialized"), and the engine reads its constraint
 * introspection's `pg_constraint.contype` as a char, which returns rows from PostgreSQL 18 on
 * (NOT NULL constraints; PGlite 0.5 is PostgreSQL 18) or whenever a table has a CHECK constraint.
 * The `pg` client reports such columns as `text` and remembers their positions; the adapter then
 * types them `Character`. Sound because the adapter runs one query at a time on one connection.
 */
async function engineAdapter(connectionString: string): Promise<SqlDriverAdapter> {
  let charColumns: number[] = [];
  const markChars = (res: pg.QueryResult | undefined) => {
    charColumns = [];
    res?.fields?.forEach((field, index) => {
      if (field.dataTypeID !== CHAR_OID) return;
      field.dataTypeID = TEXT_OID;
      charColumns.push(index);
    });
    return res;
  };
  class CharAwareClient extends pg.Client {
    override query(...args: unknown[]): never {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        // pg.Pool#query passes a callback
        args[last] = (error: Error | null, res: pg.QueryResult) => callback(error, markChars(res));
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      return (result instanceof Promise ? result.then(markChars) : result) as never;
    }
  }
  const pool = new pg.Pool({ connectionString, max: 1, Client: CharAwareClient });
  const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = async (query) => {
    charColumns = [];
    const result = await queryRaw(query);
    for (const index of charColumns) result.columnTypes[index] = ColumnTypeEnum.Character;
    return result;
  };
  // `@prisma/adapter-pg` 7.10 runs a script (a migration) by splitting it on every ";", which cuts
  // a `DO $$ … $$` block or a ";" in a comment apart. Prisma's native engine sends the script whole;
  // so do we (PostgreSQL's simple query protocol takes several statements), with the adapter's own
  // error conversion.
  const withOnError = adapter as unknown as { onError(error: unknown): never };
  adapter.executeScript = async (script: string) => {
    try {
      await pool.query(script);
    } catch (error) {
      withOnError.onError(error);
    }
  };
  return adapter;
}
const CHAR_OID = 18;
const TEXT_OID = 25;

/** The slice of the WebAssembly JS API used here (the project's `lib` has no DOM / wasm typings). */
declare const WebAssembly: {
  Module: {
    new (bytes: Uint8Array): WasmModule;
    imports(module: WasmModule): Array<{ module: string; name: string; kind: string }>;
  };
  Instance: new (
    module: WasmModule,
    imports: Record<string, unknown>,
  ) => { exports: Record<string, unknown> };
};
interface WasmModule {
  readonly __brand?: 'WebAssembly.Module';
}

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');
let lastPanic: string | undefined;

/**
 * The message of the engine's last Rust panic, if any. A panic surfaces in JS only as
 * `RuntimeError: unreachable` (often as an uncaught exception); this says what went wrong.
 */
export function lastEnginePanic(): string | undefined {
  return lastPanic;
}

let loading: Promise<{ glue: Glue; version: string }> | undefined;

function loadEngineModule(): Promise<{ glue: Glue; version: string }> {
  return (loading ??= (async () => {
    const glue: Glue = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const registry = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
    registry.PRISMA_WASM_PANIC_REGISTRY ??= { set_message: (message) => (lastPanic = message) };
    const module = compileWasm(glue);
    const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
    return { glue, version: glue.version() };
  })());
}

/** The Prisma CLI's own engine when the glue provides everything it imports, else the package's. */
function compileWasm(glue: Glue): WasmModule {
  const provided = glue as unknown as Record<string, unknown>;
  try {
    const cli = new WebAssembly.Module(
      fs.readFileSync(
        path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'schema_engine_bg.wasm'),
      ),
    );
    const fits = WebAssembly.Module.imports(cli).every(
      (entry) => entry.module === './schema_engine_bg.js' && typeof provided[entry.name] === 'function',
    );
    if (fits) return cli;
  } catch {
    // no Prisma CLI, or it no longer bundles the engine: use the package's
  }
  const packaged = path.join(
    path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
    'schema_engine_bg.wasm',
  );
  return new WebAssembly.Module(fs.readFileSync(packaged));
}
