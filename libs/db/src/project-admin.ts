import { newId } from '@agent-warden/contracts';
import type { PrismaClient } from './client';
import { recordAudit, type Actor } from './audit';
import { withProjectLock } from './policy-tx';
import type { UserRole } from './users';

/**
 * Projects as people manage them (docs/decisions.md "Projects and members"): create (the creator
 * becomes its admin), list a person's projects with their role, rename, delete with all its data.
 */

/** A project as its members see it. */
export interface ProjectRow {
  id: string;
  name: string;
  createdAt: Date;
}

/**
 * Every table holding a project's rows (column `project_id`), children before parents so that
 * deleting in this order never trips a foreign key. `projects` itself is deleted last. A test
 * (test/projects.int.test.ts) checks that every table with a `project_id` column is listed.
 */
export const PROJECT_TABLES = [
  'otlp_sequence_blocks',
  'webhook_deliveries',
  'webhook_subscriptions',
  'recommendations',
  'session_intelligence',
  'approval_transitions',
  'approvals',
  'scores',
  'llm_calls',
  'guardrail_evaluations',
  'events',
  'runs',
  'sessions',
  'agent_versions',
  'agents',
  'policy_versions',
  'policies',
  'api_keys',
  'audit_log',
  'project_members',
] as const;

/** Thrown by {@link deleteProject} for the installation's last project. */
export class LastProjectError extends Error {
  readonly code = 'conflict';
  constructor() {
    super('the last project of the installation cannot be deleted');
    this.name = 'LastProjectError';
  }
}

/** The projects a person belongs to, with their role, oldest first. */
export async function listProjectsOf(
  db: PrismaClient,
  userId: string,
): Promise<(ProjectRow & { role: UserRole })[]> {
  const rows = await db.projectMember.findMany({
    where: { userId },
    include: { project: { select: { id: true, name: true, createdAt: true } } },
    orderBy: [{ project: { createdAt: 'asc' } }, { projectId: 'asc' }],
  });
  return rows.map((m) => ({ ...m.project, role: m.role as UserRole }));
}

/** One project, or null. */
export async function findProject(db: PrismaClient, id: string): Promise<ProjectRow | null> {
  return db.project.findUnique({ where: { id }, select: { id: true, name: true, createdAt: true } });
}

/** Creates a project with `adminUserId` as its first admin, in one transaction. */
export async function createProjectWithAdmin(
  db: PrismaClient,
  name: string,
  adminUserId: string,
): Promise<ProjectRow> {
  const id = newId();
  return db.$transaction(async (tx) => {
    const p = await tx.project.create({
      data: { id, name },
      select: { id: true, name: true, createdAt: true },
    });
    await tx.projectMember.create({ data: { projectId: id, userId: adminUserId, role: 'admin' } });
    return p;
  });
}

/** Renames a project; null when it does not exist. */
export async function renameProject(db: PrismaClient, id: string, name: string): Promise<ProjectRow | null> {
  const { count } = await db.project.updateMany({ where: { id }, data: { name } });
  return count === 0 ? null : findProject(db, id);
}

/**
 * Deletes a project and every row of it ({@link PROJECT_TABLES}, then `projects`) in one
 * transaction, serialised with the project's other admin writes. The one row that stays is the
 * `project.deleted` audit record written by `actor` in the same transaction (who deleted which
 * project, when; docs/decisions.md "Deleting a project"). Returns the rows deleted per table, or
 * null when the project does not exist.
 * @throws LastProjectError when it is the installation's only project
 */
export async function deleteProject(
  db: PrismaClient,
  id: string,
  actor: Actor,
): Promise<Record<string, number> | null> {
  return withProjectLock(
    db,
    id,
    async (tx) => {
      // Serialise deletions against each other so that two concurrent deletes cannot empty the installation.
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext('agent-warden:projects'))`;
      const project = await tx.project.findUnique({ where: { id }, select: { id: true, name: true } });
      if (!project) return null;
      if ((await tx.project.count()) <= 1) throw new LastProjectError();
      const deleted: Record<string, number> = {};
      for (const table of PROJECT_TABLES)
        deleted[table] = await tx.$executeRawUnsafe(
          `DELETE FROM "${table}" WHERE "project_id" = $1::uuid`,
          id,
        );
      deleted.projects = await tx.project.deleteMany({ where: { id } }).then((r) => r.count);
      await recordAudit(tx, id, actor, [
        {
          action: 'project.deleted',
          entityType: 'project',
          entityId: id,
          before: project,
          after: { deleted },
        },
      ]);
      return deleted;
    },
    120_000,
  );
}
