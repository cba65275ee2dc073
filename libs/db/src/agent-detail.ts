import type { Agent, AgentVersion } from './generated/prisma/client';
import type { PrismaClient } from './client';
import { zeroDecisions, type DecisionCountsRow } from './guardrail-stats';

/** What one agent version did. */
export interface AgentVersionFigures {
  sessions: number;
  /** Earliest session start; null without sessions. */
  firstSeenAt: Date | null;
  /** Latest event time of its sessions; null without sessions. */
  lastSeenAt: Date | null;
  /** Guardrail evaluations by policy decision (dry runs excluded). */
  decisions: DecisionCountsRow;
}

/** An agent with its versions (newest first) and each version's figures. */
export interface AgentDetail {
  agent: Agent;
  versions: Array<AgentVersion & AgentVersionFigures>;
}

/**
 * One agent of the project with its versions and, per version, sessions, first/last seen and
 * decisions. Null when the agent does not exist in this project. Served by
 * `sessions (project_id, agent_id, started_at)` and `guardrail_evaluations (agent_id, agent_version_id)`.
 * Throws on database errors.
 */
export async function agentDetail(
  db: PrismaClient,
  projectId: string,
  agentId: string,
): Promise<AgentDetail | null> {
  const agent = await db.agent.findFirst({
    where: { id: agentId, projectId },
    include: { versions: { orderBy: { createdAt: 'desc' } } },
  });
  if (!agent) return null;
  const [sessions, decisions] = await Promise.all([
    db.$queryRaw<{ v: string; n: bigint; first: Date; last: Date }[]>`
      SELECT agent_version_id AS v, count(*) AS n, min(started_at) AS first, max(last_event_at) AS last
        FROM sessions WHERE project_id = ${projectId}::uuid AND agent_id = ${agentId}::uuid
       GROUP BY agent_version_id`,
    db.$queryRaw<{ v: string | null; d: string; n: bigint }[]>`
      SELECT agent_version_id AS v, policy_decision AS d, count(*) AS n
        FROM guardrail_evaluations
       WHERE agent_id = ${agentId}::uuid AND project_id = ${projectId}::uuid AND NOT dry_run
       GROUP BY agent_version_id, policy_decision`,
  ]);
  const { versions, ...rest } = agent;
  return {
    agent: rest as Agent,
    versions: versions.map((v) => {
      const s = sessions.find((r) => r.v === v.id);
      const counts = zeroDecisions();
      for (const d of decisions)
        if (d.v === v.id && d.d in counts) counts[d.d as keyof DecisionCountsRow] += Number(d.n);
      return {
        ...v,
        sessions: Number(s?.n ?? 0),
        firstSeenAt: s ? new Date(s.first) : null,
        lastSeenAt: s ? new Date(s.last) : null,
        decisions: counts,
      };
    }),
  };
}
