import { newId } from '@agent-warden/contracts';
import { bootstrapProject } from '@agent-warden/api';
import { createApiKey, createProject } from '@agent-warden/db';
import { hashApiKey } from '@agent-warden/http';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

const problemType = 'application/problem+json';

/** Bad input gets its status and an RFC 9457 body naming the offending field; nothing valid is lost. */
describe('gateway: bad input', () => {
  let stack: TestStack;
  let agentId: string;
  let agentVersionId: string;
  let otherKey: string;
  let otherAgentId: string;

  const event = (over: Record<string, unknown> = {}, sequence = 1, sessionId = newId()) => ({
    id: newId(),
    type: 'agent.custom',
    time: new Date().toISOString(),
    sessionId,
    agentId,
    agentVersionId,
    sequence,
    data: { name: 'probe', data: { n: sequence } },
    ...over,
  });

  beforeAll(async () => {
    stack = await startTestStack();
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'bad-input-agent' }, version: { version: '1.0.0' } },
    });
    expect(id.status).toBe(200);
    ({ agentId, agentVersionId } = id.body);
    // A second project with its own key and agent.
    const other = await createProject(stack.prisma, 'other');
    otherKey = `aw_other_${newId()}`;
    await createApiKey(stack.prisma, other.id, {
      name: 'other',
      prefix: otherKey.slice(0, 10),
      hash: hashApiKey(otherKey),
      scopes: ['ingest', 'read'],
    });
    const o = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: otherKey,
      body: { agent: { key: 'other-agent' } },
    });
    otherAgentId = o.body.agentId;
    expect(await bootstrapProject(stack.prisma, {})).toMatchObject({ createdProject: false });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('identify is idempotent', async () => {
    const again = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'bad-input-agent' }, version: { version: '1.0.0' } },
    });
    expect(again.body).toMatchObject({ agentId, agentVersionId, created: false });
  });

  test('capabilities declared for a version are stored and listed with the agent', async () => {
    const caps = [{ name: 'send_money', kind: 'tool', riskLevel: 'high', actionType: 'payment' }];
    const put = await call(
      stack.gatewayUrl,
      'PUT',
      `/v1/agents/${agentId}/versions/${agentVersionId}/capabilities`,
      {
        apiKey: stack.apiKey,
        body: { capabilities: caps },
      },
    );
    expect(put.status).toBe(200);
    const agents = await call(stack.apiUrl, 'GET', '/v1/agents', { apiKey: stack.apiKey });
    const mine = agents.body.items.find((a: { id: string }) => a.id === agentId);
    expect(mine.versions[0]).toMatchObject({ id: agentVersionId, version: '1.0.0', capabilities: caps });
    const wrong = await call(
      stack.gatewayUrl,
      'PUT',
      `/v1/agents/${agentId}/versions/${otherAgentId}/capabilities`,
      {
        apiKey: stack.apiKey,
        body: { capabilities: caps },
      },
    );
    expect(wrong.status).toBe(404);
    const bad = await call(
      stack.gatewayUrl,
      'PUT',
      `/v1/agents/${agentId}/versions/${agentVersionId}/capabilities`,
      {
        apiKey: stack.apiKey,
        body: { capabilities: [{ name: 'x', riskLevel: 'extreme' }] },
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'capabilities.0.riskLevel' })]);
  });

  test('malformed JSON → 400 invalid_json', async () => {
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      rawBody: '{"events": [',
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain(problemType);
    expect(r.body).toMatchObject({
      status: 400,
      code: 'invalid_json',
      type: expect.stringContaining('invalid_json'),
    });
  });

  test('wrong types → 400 naming each path', async () => {
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: [event({ sequence: 'one', time: 12 })] },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['events.0.sequence', 'events.0.time']));
  });

  test('unknown event type → 400 naming events.N.type', async () => {
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: [event({ type: 'agent.teleported' })] },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ path: 'events.0.type' })]);
  });

  test('oversized body → 413 body_too_large; too many events → 413 batch_too_large', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: [event({ data: { name: 'x', data: big } })] },
    });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('body_too_large');
    const many = Array.from({ length: 101 }, (_, i) => event({}, i + 1));
    const m = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: many },
    });
    expect(m.status).toBe(413);
    expect(m.body).toMatchObject({ code: 'batch_too_large', errors: [{ path: 'events' }] });
  });

  test('missing key → 401; unknown key → 401; key without the scope → 403', async () => {
    const none = await call(stack.gatewayUrl, 'POST', '/v1/events', { body: { events: [event()] } });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthenticated');
    const unknown = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: 'aw_nope_nope_nope_nope',
      body: { events: [event()] },
    });
    expect(unknown.status).toBe(401);
    const readOnly = `aw_ro_${newId()}`;
    await createApiKey(stack.prisma, stack.projectId, {
      name: 'ro',
      prefix: 'aw_ro',
      hash: hashApiKey(readOnly),
      scopes: ['read'],
    });
    const ro = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: readOnly,
      body: { events: [event()] },
    });
    expect(ro.status).toBe(403);
    expect(ro.body.code).toBe('forbidden');
  });

  test('a key of another project → 403 naming agentId; nothing crosses projects', async () => {
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: otherKey,
      body: { events: [event()] },
    });
    expect(r.status).toBe(403);
    expect(r.body.errors).toEqual([expect.objectContaining({ path: 'events.0.agentId' })]);
    const s = await call(stack.apiUrl, 'GET', '/v1/agents', { apiKey: otherKey });
    expect(s.body.items.map((a: { id: string }) => a.id)).toEqual([otherAgentId]);
    const g = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: otherKey,
      body: { agentId, tool: { name: 'send_money' } },
    });
    expect(g.status).toBe(403);
  });

  test('a mixed batch: valid events are accepted and stored, invalid ones rejected with reasons', async () => {
    const sessionId = newId();
    const good1 = event({}, 1, sessionId);
    const bad = event({ type: 'agent.tool.started', data: { toolName: 'x' } }, 2, sessionId);
    const good2 = event({}, 3, sessionId);
    const foreign = event({ agentId: otherAgentId }, 4, sessionId);
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: [good1, bad, good2, foreign] },
    });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(2);
    expect(r.body.rejected).toEqual([
      expect.objectContaining({
        index: 1,
        id: bad.id,
        code: 'invalid_event',
        errors: expect.arrayContaining([expect.objectContaining({ path: 'events.1.data.toolCallId' })]),
      }),
      expect.objectContaining({ index: 3, id: foreign.id, code: 'forbidden_agent' }),
    ]);
    const stored = await waitFor(async () => {
      const s = await call(stack.apiUrl, 'GET', `/v1/sessions/${sessionId}`, { apiKey: stack.apiKey });
      return s.status === 200 && s.body.events.length === 2 ? s.body : undefined;
    });
    expect(stored.events.map((e: { id: string }) => e.id)).toEqual([good1.id, good2.id]);
    // Sequence 2 never arrived: the session shows one lost event.
    expect(stored.missingSequences).toBe(1);
  });

  test('sending the same batch twice stores it once', async () => {
    const sessionId = newId();
    const batch = [event({}, 1, sessionId), event({}, 2, sessionId)];
    for (let i = 0; i < 2; i++) {
      const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
        apiKey: stack.apiKey,
        body: { events: batch },
      });
      expect(r.status).toBe(202);
    }
    await new Promise((r) => setTimeout(r, 1500));
    const s = await waitFor(async () => {
      const x = await call(stack.apiUrl, 'GET', `/v1/sessions/${sessionId}`, { apiKey: stack.apiKey });
      return x.status === 200 ? x.body : undefined;
    });
    expect(s.events).toHaveLength(2);
    expect(s.eventCount).toBe(2);
  });

  test('guard evaluation contract and OpenAPI document', async () => {
    const g = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      body: {
        agentId,
        agentVersionId,
        mode: 'enforce',
        tool: { name: 'send_money' },
        arguments: { amount: 5 },
      },
    });
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({
      evaluationId: expect.any(String),
      mode: 'enforce',
      policyDecision: 'allow',
      effectiveDecision: 'allow',
      matchedGuardrails: [],
      wouldBlock: false,
      wouldRequireApproval: false,
    });
    const bad = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      body: { agentId, mode: 'sometimes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'mode' })]);
    const doc = await call(stack.gatewayUrl, 'GET', '/v1/openapi.json');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/v1/events', '/v1/guardrails/evaluate', '/v1/approvals/{approvalId}']),
    );
  });
});
