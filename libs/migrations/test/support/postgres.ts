import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma/migrations');

/**
 * `DATABASE_URL` of the integration PostgreSQL. Throws (so the suite FAILS, never skips) when unset.
 */
export function requireDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url)
    throw new Error(
      'DATABASE_URL is not set: the integration tests need PostgreSQL (start it with infra/services.sh up)',
    );
  return url;
}

/** A fresh database `warden_test_<random>` on the server of `DATABASE_URL`; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const adminUrl = requireDatabaseUrl();
  const name = `warden_test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A copy of prisma/migrations in a temporary directory, to add or tamper with migrations. */
export function copyMigrations(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-migrations-'));
  fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

export function addMigration(dir: string, name: string, sql: string): void {
  fs.mkdirSync(path.join(dir, name));
  fs.writeFileSync(path.join(dir, name, 'migration.sql'), sql);
}

/** Runs a TypeScript CLI of this repository with tsx; resolves with its exit code and output. */
export function runTsx(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(REPO_ROOT, 'node_modules/.bin/tsx'),
      [path.join(REPO_ROOT, script), ...args],
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}
