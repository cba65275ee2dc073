import { Router, type RequestHandler } from 'express';
import { Uuid, type AgentDetailView, type Capability } from '@agent-warden/contracts';
import { agentDetail, zeroDecisions, type PrismaClient } from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * `GET /v1/agents/{agentId}` (read scope): identity, versions newest first with metadata,
 * declared capabilities, first/last seen, sessions and decisions per version, and the agent's
 * totals. 404 for an agent of another project or none.
 */
export function agentsRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const r = Router();
  r.get('/v1/agents/:agentId', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.agentId, 'agentId');
    const found = await agentDetail(deps.db, projectId, id);
    if (!found) throw notFound('agent');
    const { agent, versions } = found;
    const decisions = zeroDecisions();
    for (const v of versions)
      for (const k of Object.keys(decisions) as Array<keyof typeof decisions>) decisions[k] += v.decisions[k];
    const firsts = versions.map((v) => v.firstSeenAt).filter((d): d is Date => d !== null);
    const body: AgentDetailView = {
      id: agent.id,
      key: agent.key,
      name: agent.name,
      description: agent.description,
      createdAt: agent.createdAt.toISOString(),
      firstSeenAt: firsts.length ? new Date(Math.min(...firsts.map((d) => d.getTime()))).toISOString() : null,
      lastSeenAt: iso(latest([agent.lastSeenAt, ...versions.map((v) => v.lastSeenAt)])),
      sessions: versions.reduce((n, v) => n + v.sessions, 0),
      decisions,
      versions: versions.map((v) => ({
        id: v.id,
        version: v.version,
        metadata: v.metadata as Record<string, unknown>,
        capabilities: v.capabilities as Capability[],
        createdAt: v.createdAt.toISOString(),
        firstSeenAt: iso(v.firstSeenAt),
        lastSeenAt: iso(v.lastSeenAt),
        sessions: v.sessions,
        decisions: v.decisions,
      })),
    };
    res.json(body);
  });
  return r;
}

function latest(dates: Array<Date | null>): Date | null {
  let best: Date | null = null;
  for (const d of dates) if (d && (!best || d > best)) best = d;
  return best;
}
