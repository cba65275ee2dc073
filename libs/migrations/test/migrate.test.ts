import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  checksumMatches,
  MIGRATION_LOCK_TOML,
  MigrationsDirectoryError,
  readMigrationsDir,
  sha256Hex,
} from '../src';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'warden-migrations-unit-'));
}

describe('checksums', () => {
  it('is the SHA-256 hex of the bytes, as Prisma stores it', () => {
    expect(sha256Hex('hello')).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
  });

  it('matches across LF / CRLF line endings, like Prisma', () => {
    const lf = 'CREATE TABLE a ();\nCREATE TABLE b ();\n';
    const crlf = lf.replace(/\n/g, '\r\n');
    expect(checksumMatches(lf, sha256Hex(crlf))).toBe(true);
    expect(checksumMatches(crlf, sha256Hex(lf))).toBe(true);
    expect(checksumMatches(lf, sha256Hex(`${lf}-- more\n`))).toBe(false);
  });

  it('matches the unpadded checksums of old Prisma engines', () => {
    // a script whose digest has a byte below 0x10, so the old format is shorter than 64 digits
    let script = '';
    let unpadded = '';
    for (let i = 0; unpadded.length === 0 || unpadded.length === 64; i++) {
      script = `SELECT ${i};\n`;
      unpadded = [...createHash('sha256').update(script).digest()].map((byte) => byte.toString(16)).join('');
    }
    expect(checksumMatches(script, unpadded)).toBe(true);
    expect(checksumMatches(`${script} `, unpadded)).toBe(false);
  });
});

describe('readMigrationsDir', () => {
  it('lists migration folders in name order with their checksums, ignoring files', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'migration_lock.toml'), MIGRATION_LOCK_TOML);
    for (const name of ['20250102000000_second', '20250101000000_first']) {
      fs.mkdirSync(path.join(dir, name));
      fs.writeFileSync(path.join(dir, name, 'migration.sql'), `-- ${name}\n`);
    }
    expect(readMigrationsDir(dir)).toEqual([
      {
        name: '20250101000000_first',
        sql: '-- 20250101000000_first\n',
        checksum: sha256Hex('-- 20250101000000_first\n'),
      },
      {
        name: '20250102000000_second',
        sql: '-- 20250102000000_second\n',
        checksum: sha256Hex('-- 20250102000000_second\n'),
      },
    ]);
  });

  it('rejects a missing directory, a folder without migration.sql, and another provider', () => {
    expect(() => readMigrationsDir(path.join(tempDir(), 'nope'))).toThrow(MigrationsDirectoryError);

    const noSql = tempDir();
    fs.mkdirSync(path.join(noSql, '20250101000000_empty'));
    expect(() => readMigrationsDir(noSql)).toThrow(/20250101000000_empty has no readable migration.sql/);

    const mysql = tempDir();
    fs.writeFileSync(path.join(mysql, 'migration_lock.toml'), 'provider = "mysql"\n');
    expect(() => readMigrationsDir(mysql)).toThrow(/expected "postgresql"/);
  });

  it('reads the repository migrations', () => {
    const migrations = readMigrationsDir(path.resolve(__dirname, '../../../prisma/migrations'));
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations[0]!.name).toMatch(/^\d{14}_init$/);
    expect(migrations[0]!.sql).toContain(
      'CREATE INDEX "events_project_id_type_time_idx" ON "events"("project_id", "type", "time" DESC);',
    );
  });
});
