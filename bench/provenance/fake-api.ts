/**
 * An in-process stand-in for the service, given to the client as its `fetch`: answers identify,
 * the capability declaration, event batches and evaluations at once with valid bodies, with no
 * network, so the figures are the client's own cost.
 */
export function fakeServiceFetch(): typeof fetch {
  const ids = {
    agentId: '0190a5f1-0000-7000-8000-000000000001',
    agentVersionId: '0190a5f1-0000-7000-8000-000000000002',
  };
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const method = init?.method ?? 'GET';
    if (method === 'POST' && url.pathname === '/v1/agents/identify') {
      return json(200, { ...ids, projectId: 'prj_bench', version: '1', created: true });
    }
    if (method === 'PUT') return json(200, { agentVersionId: ids.agentVersionId, capabilities: [] });
    if (method === 'POST' && url.pathname === '/v1/events') {
      const body = JSON.parse(String(init?.body)) as { events: unknown[] };
      return json(202, { accepted: body.events.length, rejected: [] });
    }
    if (method === 'POST' && url.pathname === '/v1/guardrails/evaluate') {
      return json(200, {
        evaluationId: '0190a5f1-0000-7000-8000-000000000003',
        mode: 'monitor',
        policyDecision: 'allow',
        effectiveDecision: 'allow',
        matchedGuardrails: [],
        wouldBlock: false,
        wouldRequireApproval: false,
        evaluatedAt: new Date().toISOString(),
      });
    }
    return json(404, { type: 'about:blank', title: 'Not Found', status: 404 });
  }) as typeof fetch;
}
