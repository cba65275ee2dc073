import type { EventBatchResponse, IdentifyResponse } from '@agent-warden/contracts';
import type { AgentIds } from './workload';

/** `POST /v1/agents/identify` for each agent; returns the server ids by agent key. */
export async function identifyAgents(
  gatewayUrl: string,
  apiKey: string,
  agents: { key: string; name: string }[],
): Promise<Map<string, AgentIds>> {
  const out = new Map<string, AgentIds>();
  for (const a of agents) {
    const res = await fetch(`${gatewayUrl}/v1/agents/identify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: a, version: { version: 'bench' } }),
    });
    if (res.status !== 200) throw new Error(`identify ${a.key}: HTTP ${res.status} ${await res.text()}`);
    const body = (await res.json()) as IdentifyResponse;
    out.set(a.key, { agentId: body.agentId, agentVersionId: body.agentVersionId });
  }
  return out;
}

/**
 * `POST /v1/events` (or `path`, e.g. the parse-only floor route) with a pre-serialised body (Node's
 * fetch = undici, keep-alive). Resolves with the number of events accepted; throws on any answer
 * but 202 or when an event was rejected.
 */
export async function postEvents(
  gatewayUrl: string,
  apiKey: string,
  body: string,
  path = '/v1/events',
): Promise<number> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  const r = JSON.parse(text) as EventBatchResponse;
  if (r.rejected.length > 0)
    throw new Error(`POST ${path} rejected ${r.rejected.length}: ${JSON.stringify(r.rejected[0])}`);
  return r.accepted;
}
