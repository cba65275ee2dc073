import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { newId } from '@agent-warden/contracts';
import type { PrismaClient } from './client';
import type { User } from './generated/prisma/client';

export type { User };

/** Roles of people in a project (docs/architecture.md#auth). */
export type UserRole = 'viewer' | 'approver' | 'admin';

/**
 * scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB, ~100 ms a hash on one core) — OWASP's floor for
 * scrypt is N = 2^17 with 128 MiB; the parameters are stored with each hash, so raising them later
 * only needs new hashes (docs/decisions.md "Password hashing").
 */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltBytes: 16 };

function scrypt(password: string, salt: Buffer, keyLength: number, o: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, keyLength, o, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

const maxmem = (N: number, r: number) => 128 * N * r * 2;

/** Hashes a password with scrypt: `scrypt$N$r$p$<salt base64url>$<hash base64url>`. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltBytes } = SCRYPT;
  const salt = randomBytes(saltBytes);
  const key = await scrypt(password, salt, keyLength, { N, r, p, maxmem: maxmem(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Checks a password against a stored {@link hashPassword} hash with a constant-time comparison.
 * False (never throws) for a malformed hash or out-of-range parameters.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16)
    return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length < 16) return false;
  try {
    const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: maxmem(N, r) });
    return timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}

/** A hash of a random password, checked when the email is unknown so both failures cost the same. */
let dummyHash: Promise<string> | undefined;

/** Thrown by {@link createUser} when the (lower-cased) email is already taken. */
export class UserEmailTakenError extends Error {
  readonly code = 'conflict';
  constructor(readonly email: string) {
    super(`a user with email ${email} already exists`);
    this.name = 'UserEmailTakenError';
  }
}

/** Thrown when a change would leave a project without an enabled admin (docs/decisions.md "Projects and members"). */
export class LastAdminError extends Error {
  readonly code = 'conflict';
  constructor() {
    super('the project needs at least one enabled admin');
    this.name = 'LastAdminError';
  }
}

/** Normalised email: trimmed, lower-cased (emails are unique across the installation). */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * Creates a person (installation-wide account) with a hashed password and, with `projectId` and
 * `role`, their membership of that project, in one transaction.
 * @throws UserEmailTakenError when the email is taken
 */
export async function createUser(
  db: PrismaClient,
  data: { email: string; password: string; name?: string | null; projectId?: string; role?: UserRole },
): Promise<User> {
  const email = normaliseEmail(data.email);
  const passwordHash = await hashPassword(data.password);
  const id = newId();
  try {
    return await db.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { id, email, name: data.name ?? null, passwordHash } });
      if (data.projectId && data.role)
        await tx.projectMember.create({ data: { projectId: data.projectId, userId: id, role: data.role } });
      return user;
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new UserEmailTakenError(email);
    throw err;
  }
}

/** The user with this email (enabled or not), or null. */
export async function findUserByEmail(db: PrismaClient, email: string): Promise<User | null> {
  return db.user.findUnique({ where: { email: normaliseEmail(email) } });
}

/** One user by id, or null. */
export async function findUser(db: PrismaClient, id: string): Promise<User | null> {
  return db.user.findUnique({ where: { id } });
}

/**
 * Checks an email and password. Returns the enabled user, or null for an unknown email, a wrong
 * password or a disabled user alike; an unknown email still costs one scrypt so that timing does
 * not tell which emails exist. Records `lastLoginAt` on success.
 */
export async function authenticateUser(
  db: PrismaClient,
  email: string,
  password: string,
): Promise<User | null> {
  const user = await findUserByEmail(db, email);
  if (!user) {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(password, await dummyHash);
    return null;
  }
  const ok = await verifyPassword(password, user.passwordHash);
  if (!ok || user.disabledAt) return null;
  return db.user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
}
