import type { PrismaClient } from './client';

/** A stored policy as the gateway's engine needs it. */
export interface PolicyRow {
  id: string;
  projectId: string;
  name: string;
  version: number;
  enabled: boolean;
  decision: string;
  match: unknown;
  approval: unknown;
}

/** Enabled, not deleted policies of every project, and each project's default decision. */
export async function loadActivePolicies(
  db: PrismaClient,
): Promise<{ policies: PolicyRow[]; defaults: Map<string, string> }> {
  const [policies, projects] = await Promise.all([
    db.policy.findMany({
      where: { enabled: true, deletedAt: null },
      select: {
        id: true,
        projectId: true,
        name: true,
        version: true,
        enabled: true,
        decision: true,
        match: true,
        approval: true,
      },
      orderBy: { name: 'asc' },
    }),
    db.project.findMany({ select: { id: true, defaultDecision: true } }),
  ]);
  return { policies, defaults: new Map(projects.map((p) => [p.id, p.defaultDecision])) };
}

/** Enabled, not deleted policies of one project (a backtest's baseline), by name. */
export async function loadProjectPolicies(db: PrismaClient, projectId: string): Promise<PolicyRow[]> {
  return db.policy.findMany({
    where: { projectId, enabled: true, deletedAt: null },
    select: {
      id: true,
      projectId: true,
      name: true,
      version: true,
      enabled: true,
      decision: true,
      match: true,
      approval: true,
    },
    orderBy: { name: 'asc' },
  });
}

/**
 * A fingerprint of everything the gateways' engines depend on: an MD5 over every policy's
 * `(id, version, enabled, deleted_at, updated_at)` and every project's default decision. Any write
 * through the policy API changes it — a new version (update, enable, disable), a soft delete, a
 * default-decision change — and so does a direct SQL edit that touches `updated_at`. Gateways poll
 * it (one small query) and reload only when it changes. Cost: one scan of `policies` and
 * `projects`, which hold a few thousand rows at most.
 */
export async function policyFingerprint(db: PrismaClient): Promise<string> {
  const rows = await db.$queryRaw<{ fp: string }[]>`
    SELECT concat_ws(':',
      (SELECT count(*) FROM policies),
      (SELECT md5(coalesce(string_agg(concat_ws('/', id::text, version::text, enabled::text,
                coalesce(deleted_at::text, '-'), updated_at::text), ',' ORDER BY id), ''))
         FROM policies),
      (SELECT md5(coalesce(string_agg(id::text || '=' || default_decision, ',' ORDER BY id), ''))
         FROM projects)) AS fp`;
  return rows[0]?.fp ?? '';
}
