import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@agent-warden/observability';

/** File name, in the data directory, of the secrets made at a first start (mode 0600). */
export const FIRST_START_SECRETS_FILE = 'first-start-secrets.env';

/** Secrets a first start generated (each is set only when it was generated). */
export interface FirstStartSecrets {
  /** Where the service answers, written for convenience. */
  url?: string;
  /** The generated API key (all scopes). */
  apiKey?: string;
  /** The first admin with its random password. */
  admin?: { email: string; password: string };
}

/**
 * Hands the secrets of a first start to the operator without any log line holding them
 * (docs/decisions.md "First-start secrets never go through the logger"): writes them as
 * `KEY=value` lines (`WARDEN_API_KEY`, `WARDEN_ADMIN_EMAIL`, `WARDEN_ADMIN_PASSWORD`) to
 * `<dir>/first-start-secrets.env` with mode 0600 (replacing an older one), logs only the file's
 * path, and, when `terminal` is a TTY, also prints them there directly (not through the logger).
 * Does nothing when no secret was generated.
 *
 * @param dir directory for the file (the data directory); created when missing
 * @param terminal where to print them when it is a TTY (default `process.stdout`)
 * @returns the file's path, or `undefined` when there was nothing to write
 * @throws the file system's error when the file cannot be written (the start should fail: the
 *   secrets would be lost otherwise)
 */
export async function handOverFirstStartSecrets(
  dir: string,
  secrets: FirstStartSecrets,
  logger: Logger,
  terminal: NodeJS.WriteStream = process.stdout,
): Promise<string | undefined> {
  if (!secrets.apiKey && !secrets.admin) return undefined;
  const file = path.join(dir, FIRST_START_SECRETS_FILE);
  const lines = [
    '# Agent Warden: secrets generated at the first start. They are not stored anywhere else',
    '# (only hashes): keep them in a password manager, then delete this file.',
    ...(secrets.url ? [`WARDEN_BASE_URL=${secrets.url}`] : []),
    ...(secrets.apiKey ? [`WARDEN_API_KEY=${secrets.apiKey}`] : []),
    ...(secrets.admin
      ? [`WARDEN_ADMIN_EMAIL=${secrets.admin.email}`, `WARDEN_ADMIN_PASSWORD=${secrets.admin.password}`]
      : []),
  ];
  await fs.mkdir(dir, { recursive: true });
  // A new file (mode 0600 from its creation), renamed over any older one: never readable by others.
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(tmp, lines.join('\n') + '\n', { mode: 0o600, flag: 'wx' });
  await fs.rename(tmp, file);
  logger.warn(
    { file, apiKey: Boolean(secrets.apiKey), admin: secrets.admin?.email },
    'first start: generated secrets written to a file readable only by this user',
  );
  if (terminal.isTTY) {
    const out = [`\n  Agent Warden${secrets.url ? ` is running at ${secrets.url}` : ''}`];
    if (secrets.apiKey) out.push(`  Your API key: ${secrets.apiKey}`);
    if (secrets.admin)
      out.push(`  Dashboard: sign in as ${secrets.admin.email} with the password: ${secrets.admin.password}`);
    out.push(`  (also in ${file}, mode 0600: delete it once you have stored them)\n\n`);
    terminal.write(out.join('\n'));
  }
  return file;
}

/**
 * Checks, before anything is generated, that the secrets of a first start could be written to
 * `dir` (creating it when missing): a start that generated a key and then failed to hand it over
 * would lose it for good, since the next start finds a key and makes none.
 * @throws Error naming the directory and the variables to set when it is not writable
 */
export async function assertSecretsDirWritable(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.access(dir, fsConstants.W_OK);
  } catch (err) {
    throw new Error(
      `${dir} is not writable, so the secrets of a first start could not be handed over: set WARDEN_DATA_DIR ` +
        `to a writable directory, or WARDEN_INIT_API_KEY and WARDEN_INIT_ADMIN_EMAIL / _PASSWORD`,
      { cause: err },
    );
  }
}

/** Reads a file written by {@link handOverFirstStartSecrets} back (tests, scripts). */
export async function readFirstStartSecrets(dir: string): Promise<FirstStartSecrets> {
  const text = await fs.readFile(path.join(dir, FIRST_START_SECRETS_FILE), 'utf8');
  const v = Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('=') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ) as Record<string, string | undefined>;
  return {
    url: v.WARDEN_BASE_URL,
    apiKey: v.WARDEN_API_KEY,
    admin:
      v.WARDEN_ADMIN_EMAIL && v.WARDEN_ADMIN_PASSWORD
        ? { email: v.WARDEN_ADMIN_EMAIL, password: v.WARDEN_ADMIN_PASSWORD }
        : undefined,
  };
}
