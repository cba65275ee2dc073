import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** File under the data directory holding the standalone service's session secret. */
export const SESSION_SECRET_FILE = 'jwt-secret';

/**
 * The session secret of the standalone service: `<dataDir>/jwt-secret`, made at first start
 * (48 random bytes, base64url) with mode 0600 so that people stay signed in across restarts.
 * Throws when the file exists but holds fewer than 32 characters.
 */
export async function loadOrCreateSessionSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SESSION_SECRET_FILE);
  await fs.mkdir(dataDir, { recursive: true });
  try {
    await fs.writeFile(file, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const secret = (await fs.readFile(file, 'utf8')).trim();
  if (secret.length < 32) throw new Error(`${file} must hold at least 32 characters`);
  return secret;
}
