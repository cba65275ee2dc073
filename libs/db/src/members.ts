import type { Prisma } from './generated/prisma/client';
import type { PrismaClient } from './client';
import { withProjectLock } from './policy-tx';
import { LastAdminError, hashPassword, type User, type UserRole } from './users';

/**
 * Members of a project: a person (`users`, installation-wide) with a role in one project
 * (`project_members`). Rules (docs/decisions.md "Projects and members"): a project keeps at least
 * one enabled admin; account-wide changes (password, name, disabled) are only made by someone who
 * administers every project the person belongs to.
 */

/** A person as a member of one project. */
export type Member = User & { role: UserRole; projectId: string };

/** Thrown by {@link addMember} when the person already belongs to the project. */
export class AlreadyMemberError extends Error {
  readonly code = 'conflict';
  constructor() {
    super('the person is already a member of this project');
    this.name = 'AlreadyMemberError';
  }
}

/**
 * Thrown when an account-wide change (password, name, disabled) targets a person who also belongs to
 * a project the actor does not administer.
 */
export class ForeignAccountError extends Error {
  readonly code = 'forbidden';
  constructor() {
    super('this person also belongs to projects you do not administer: only their role here can be changed');
    this.name = 'ForeignAccountError';
  }
}

type Tx = Prisma.TransactionClient;

/** The role of a person in a project, or null when they are not a member. */
export async function findMembership(
  db: PrismaClient | Tx,
  projectId: string,
  userId: string,
): Promise<{ role: UserRole } | null> {
  const m = await db.projectMember.findUnique({
    where: { projectId_userId: { projectId, userId } },
    select: { role: true },
  });
  return m ? { role: m.role as UserRole } : null;
}

/** One member of a project, or null. */
export async function findMember(
  db: PrismaClient | Tx,
  projectId: string,
  userId: string,
): Promise<Member | null> {
  const m = await db.projectMember.findUnique({
    where: { projectId_userId: { projectId, userId } },
    include: { user: true },
  });
  return m ? { ...m.user, role: m.role as UserRole, projectId } : null;
}

/** The project's members, by email. */
export async function listMembers(db: PrismaClient, projectId: string): Promise<Member[]> {
  const rows = await db.projectMember.findMany({
    where: { projectId },
    include: { user: true },
    orderBy: { user: { email: 'asc' } },
  });
  return rows.map((m) => ({ ...m.user, role: m.role as UserRole, projectId }));
}

/** Number of members of a project (any state). */
export async function countUsers(db: PrismaClient, projectId: string): Promise<number> {
  return db.projectMember.count({ where: { projectId } });
}

/** The earliest project a person belongs to (their project at sign-in), or null. */
export async function firstMembership(
  db: PrismaClient,
  userId: string,
): Promise<{ projectId: string; role: UserRole } | null> {
  const m = await db.projectMember.findFirst({
    where: { userId },
    orderBy: [{ createdAt: 'asc' }, { projectId: 'asc' }],
  });
  return m ? { projectId: m.projectId, role: m.role as UserRole } : null;
}

/**
 * Adds an existing person to a project with a role.
 * @throws AlreadyMemberError when they already belong to it
 */
export async function addMember(
  db: PrismaClient,
  projectId: string,
  userId: string,
  role: UserRole,
): Promise<Member> {
  try {
    await db.projectMember.create({ data: { projectId, userId, role } });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new AlreadyMemberError();
    throw err;
  }
  return (await findMember(db, projectId, userId))!;
}

/** Enabled admins of the project other than `userId`. */
const otherAdmins = (tx: Tx, projectId: string, userId: string) =>
  tx.projectMember.count({
    where: { projectId, role: 'admin', userId: { not: userId }, user: { disabledAt: null } },
  });

/**
 * Whether an actor administering `administered` (project ids) may make account-wide changes to a
 * person: true when every project of the person is among them.
 */
export async function administersAllProjectsOf(
  db: PrismaClient | Tx,
  userId: string,
  administered: readonly string[],
): Promise<boolean> {
  const foreign = await db.projectMember.count({
    where: { userId, projectId: { notIn: [...administered] } },
  });
  return foreign === 0;
}

/** What {@link updateMember} may change: the role here; the account's name, password and disabled state. */
export interface MemberChange {
  role?: UserRole;
  disabled?: boolean;
  name?: string | null;
  password?: string;
}

/**
 * Changes a member of the project: `role` (this project only) and the account-wide `disabled`, `name`
 * and `password`. Serialised per project so that the last enabled admin cannot be demoted or
 * disabled; disabling also checks every other project the person administers. Returns null when the
 * person is not a member.
 * @throws LastAdminError when a project would keep no enabled admin
 * @throws ForeignAccountError when an account-wide change targets a person of a project outside `administered`
 */
export async function updateMember(
  db: PrismaClient,
  projectId: string,
  userId: string,
  change: MemberChange,
  administered: readonly string[],
): Promise<Member | null> {
  const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
  const accountWide =
    change.disabled !== undefined || change.name !== undefined || passwordHash !== undefined;
  return withProjectLock(db, projectId, async (tx) => {
    const member = await findMember(tx, projectId, userId);
    if (!member) return null;
    if (accountWide && !(await administersAllProjectsOf(tx, userId, administered)))
      throw new ForeignAccountError();
    const disabled = change.disabled ?? member.disabledAt !== null;
    const staysAdmin = (change.role ?? member.role) === 'admin' && !disabled;
    if (
      member.role === 'admin' &&
      !member.disabledAt &&
      !staysAdmin &&
      (await otherAdmins(tx, projectId, userId)) < 1
    )
      throw new LastAdminError();
    if (change.disabled === true && !member.disabledAt) {
      const adminOf = await tx.projectMember.findMany({ where: { userId, role: 'admin' } });
      for (const m of adminOf)
        if ((await otherAdmins(tx, m.projectId, userId)) < 1) throw new LastAdminError();
    }
    if (change.role !== undefined)
      await tx.projectMember.update({
        where: { projectId_userId: { projectId, userId } },
        data: { role: change.role },
      });
    if (accountWide)
      await tx.user.update({
        where: { id: userId },
        data: {
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(passwordHash !== undefined ? { passwordHash } : {}),
          ...(change.disabled !== undefined
            ? { disabledAt: change.disabled ? (member.disabledAt ?? new Date()) : null }
            : {}),
        },
      });
    return findMember(tx, projectId, userId);
  });
}

/**
 * Removes a person from a project (the account stays). Returns the removed member, or null when
 * they were not one.
 * @throws LastAdminError when they are the project's last enabled admin
 */
export async function removeMember(
  db: PrismaClient,
  projectId: string,
  userId: string,
): Promise<Member | null> {
  return withProjectLock(db, projectId, async (tx) => {
    const member = await findMember(tx, projectId, userId);
    if (!member) return null;
    if (member.role === 'admin' && !member.disabledAt && (await otherAdmins(tx, projectId, userId)) < 1)
      throw new LastAdminError();
    await tx.projectMember.delete({ where: { projectId_userId: { projectId, userId } } });
    return member;
  });
}

/** Wire form of a member (contracts `UserView`): never the password hash. */
export function userView(u: Member) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    projectId: u.projectId,
    createdAt: u.createdAt.toISOString(),
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
    disabledAt: u.disabledAt?.toISOString() ?? null,
  };
}

/** Ids of the projects where the person `userId` is an admin (any order). */
export async function projectsAdministeredBy(db: PrismaClient, userId: string): Promise<string[]> {
  const rows = await db.projectMember.findMany({
    where: { userId, role: 'admin' },
    select: { projectId: true },
  });
  return rows.map((r) => r.projectId);
}
