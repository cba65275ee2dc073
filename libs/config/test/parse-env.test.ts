import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, IntEnv, parseEnv } from '../src';

const Schema = z.object({
  DATABASE_URL: z.string().url(),
  PORT: IntEnv.default(7400),
  WARDEN_JWT_SECRET: z.string().min(32).optional(),
});

describe('parseEnv', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parse-env-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const secret = (name: string, content: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  };

  test('empty strings count as unset, so defaults apply', () => {
    expect(parseEnv(Schema, { DATABASE_URL: 'postgresql://a@b/c', PORT: '' })).toEqual({
      DATABASE_URL: 'postgresql://a@b/c',
      PORT: 7400,
    });
  });

  test('<NAME>_FILE supplies <NAME> from a file (Docker / Kubernetes secrets), without the trailing newline', () => {
    const env = {
      DATABASE_URL_FILE: secret('db', 'postgresql://warden:s3cret@db:5432/warden\n'),
      WARDEN_JWT_SECRET_FILE: secret('jwt', 'x'.repeat(48) + '\r\n'),
    };
    expect(parseEnv(Schema, env)).toEqual({
      DATABASE_URL: 'postgresql://warden:s3cret@db:5432/warden',
      PORT: 7400,
      WARDEN_JWT_SECRET: 'x'.repeat(48),
    });
  });

  test('the file content is validated like the variable, and never shown in the error', () => {
    const env = {
      WARDEN_JWT_SECRET_FILE: secret('jwt', 'too-short-secret'),
      DATABASE_URL: 'postgresql://a@b/c',
    };
    let error: unknown;
    try {
      parseEnv(Schema, env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('WARDEN_JWT_SECRET');
    expect((error as ConfigError).message).not.toContain('too-short-secret');
  });

  test('only variables the schema declares are read from files; other *_FILE variables are left alone', () => {
    expect(
      parseEnv(Schema, {
        DATABASE_URL: 'postgresql://a@b/c',
        TF_CLI_CONFIG_FILE: path.join(dir, 'missing'),
        OTHER_FILE: secret('other', 'x'),
      }),
    ).toEqual({ DATABASE_URL: 'postgresql://a@b/c', PORT: 7400 });
    // Through a refined / piped schema too.
    const refined = Schema.refine(() => true).pipe(z.any());
    expect(parseEnv(refined, { DATABASE_URL_FILE: secret('db', 'postgresql://x@y/z') })).toMatchObject({
      DATABASE_URL: 'postgresql://x@y/z',
    });
  });

  test('both <NAME> and <NAME>_FILE, or an unreadable file, are errors naming the variable', () => {
    expect(() =>
      parseEnv(Schema, {
        DATABASE_URL: 'postgresql://a@b/c',
        DATABASE_URL_FILE: secret('db', 'postgresql://x@y/z'),
      }),
    ).toThrow('DATABASE_URL_FILE: set DATABASE_URL or DATABASE_URL_FILE, not both');
    expect(() => parseEnv(Schema, { DATABASE_URL_FILE: path.join(dir, 'missing') })).toThrow(
      /DATABASE_URL_FILE: cannot read .*missing: ENOENT/,
    );
  });
});
