import { Router, type RequestHandler } from 'express';
import { CapabilityDeclaration, IdentifyRequest, Uuid } from '@agent-warden/contracts';
import { declareCapabilities, identifyAgent, type PrismaClient } from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';
import type { AgentDirectory } from '../agent-directory';

/** `POST /v1/agents/identify` and `PUT /v1/agents/{agentId}/versions/{agentVersionId}/capabilities`. */
export function agentsRouter(deps: {
  auth: RequestHandler;
  db: PrismaClient;
  agents: AgentDirectory;
}): Router {
  const r = Router();
  r.post('/v1/agents/identify', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const body = parseOr400(IdentifyRequest, req.body);
    const out = await identifyAgent(deps.db, projectId, body);
    deps.agents.remember(out.agentId, projectId, body.agent.key);
    deps.agents.rememberVersion(out.agentVersionId, projectId, out.agentId);
    res.status(200).json(out);
  });
  r.put('/v1/agents/:agentId/versions/:agentVersionId/capabilities', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const agentId = parseOr400(Uuid, req.params.agentId, 'agentId');
    const agentVersionId = parseOr400(Uuid, req.params.agentVersionId, 'agentVersionId');
    const body = parseOr400(CapabilityDeclaration, req.body);
    const stored = await declareCapabilities(deps.db, projectId, agentId, agentVersionId, body.capabilities);
    if (!stored) throw notFound('agent version');
    res.status(200).json({ agentVersionId, capabilities: stored });
  });
  return r;
}
