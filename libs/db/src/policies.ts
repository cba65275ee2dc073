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

/**
 * A cheap fingerprint of the policy set and project defaults: changes whenever a policy or a
 * default decision changes, so gateways reload only then.
 */
export async function policyFingerprint(db: PrismaClient): Promise<string> {
  const rows = await db.$queryRaw<{ fp: string }[]>`
    SELECT concat_ws(':',
      (SELECT count(*) FROM policies), (SELECT coalesce(max(updated_at)::text, '') FROM policies),
      (SELECT coalesce(sum(version), 0) FROM policies),
      (SELECT coalesce(string_agg(default_decision, ',' ORDER BY id), '') FROM projects)) AS fp`;
  return rows[0]?.fp ?? '';
}
