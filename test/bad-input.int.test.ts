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
    // An Idempotency-Key longer than the document allows is refused, not silently ignored.
    const longKey = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      headers: { 'idempotency-key': 'k'.repeat(256) },
      body: { agentId, mode: 'monitor', tool: { name: 'send_money' } },
    });
    expect(longKey.status).toBe(400);
    expect(longKey.body.errors).toEqual([expect.objectContaining({ path: 'headers.idempotency-key' })]);
    const doc = await call(stack.gatewayUrl, 'GET', '/v1/openapi.json');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/v1/events', '/v1/guardrails/evaluate', '/v1/approvals/{approvalId}']),
    );
  });
  /** `{ k: { k: … 1 } }` nested `levels` deep (built iteratively; JSON.stringify of it would overflow). */
  const deepJson = (levels: number): string => '{"k":'.repeat(levels) + '1' + '}'.repeat(levels);
  /** An event as JSON text with `payload` (JSON text) spliced in at `slot` (a JSON string placeholder). */
  const withPayload = (e: Record<string, unknown>, payload: string): string =>
    JSON.stringify(e).replace('"__PAYLOAD__"', payload);
  const storedEvents = (ids: string[]) =>
    stack.prisma.event.findMany({ where: { id: { in: ids } }, select: { id: true, data: true } });

  test('10,000-deep JSON in data, attributes or arguments: those events rejected with their paths, the rest stored once', async () => {
    const sessionId = newId();
    const runId = newId();
    const good1 = event({}, 1, sessionId);
    const deepData = event({ data: { name: 'deep', data: '__PAYLOAD__' } }, 2, sessionId);
    const deepAttributes = event(
      { type: 'agent.run.started', runId, data: { name: 'r', attributes: '__PAYLOAD__' } },
      3,
      sessionId,
    );
    const deepArguments = event(
      {
        type: 'agent.tool.started',
        runId,
        data: { toolCallId: newId(), toolName: 't', arguments: '__PAYLOAD__' },
      },
      4,
      sessionId,
    );
    // Just past the payload limit (64 levels): rejected by the schema, with the path.
    const justTooDeep = event({ data: { name: 'deep65', data: '__PAYLOAD__' } }, 5, sessionId);
    const good2 = event({}, 6, sessionId);
    const rawBody = `{"events":[${[
      JSON.stringify(good1),
      withPayload(deepData, deepJson(10_000)),
      withPayload(deepAttributes, deepJson(10_000)),
      withPayload(deepArguments, deepJson(10_000)),
      withPayload(justTooDeep, deepJson(65)),
      JSON.stringify(good2),
    ].join(',')}]}`;
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, rawBody });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(2);
    expect(r.body.rejected.map((x: { index: number; code: string }) => [x.index, x.code])).toEqual([
      [1, 'invalid_event'],
      [2, 'invalid_event'],
      [3, 'invalid_event'],
      [4, 'invalid_event'],
    ]);
    const firstPath = (i: number) => r.body.rejected[i].errors[0].path as string;
    expect(firstPath(0)).toMatch(/^events\.1\.data\.data(\.k)+$/);
    expect(firstPath(1)).toMatch(/^events\.2\.data\.attributes(\.k)+$/);
    expect(firstPath(2)).toMatch(/^events\.3\.data\.arguments(\.k)+$/);
    expect(firstPath(3)).toBe(`events.4.data.data${'.k'.repeat(64)}`);
    const ids = [good1, deepData, deepAttributes, deepArguments, justTooDeep, good2].map(
      (e) => e.id as string,
    );
    await waitFor(async () => (await storedEvents(ids)).length === 2);
    await new Promise((res) => setTimeout(res, 1000)); // a late duplicate or straggler would show now
    const stored = await stack.prisma.event.findMany({ where: { sessionId }, select: { id: true } });
    expect(stored.map((e) => e.id).sort()).toEqual([good1.id as string, good2.id as string].sort());
  });

  test('10,000-deep guard arguments, identify metadata or capabilities body → 400 naming the path', async () => {
    const g = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      rawBody: `{"agentId":"${agentId}","tool":{"name":"t"},"arguments":${deepJson(10_000)}}`,
    });
    expect(g.status).toBe(400);
    expect(g.headers.get('content-type')).toContain(problemType);
    expect(g.body.errors[0].path).toMatch(/^arguments(\.k)+$/);
    const shallowEnough = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      rawBody: `{"agentId":"${agentId}","tool":{"name":"t"},"arguments":${deepJson(70)}}`,
    });
    expect(shallowEnough.status).toBe(400);
    expect(shallowEnough.body.errors[0].path).toBe(`arguments${'.k'.repeat(64)}`);
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      rawBody: `{"agent":{"key":"deep-agent"},"version":{"metadata":${deepJson(10_000)}}}`,
    });
    expect(id.status).toBe(400);
    expect(id.body.errors[0].path).toMatch(/^version\.metadata(\.k)+$/);
    expect(await stack.prisma.agent.count({ where: { key: 'deep-agent' } })).toBe(0);
  });

  test('sequence 2^31 is rejected with its path; 2^31 − 1 is stored', async () => {
    const sessionId = newId();
    const tooBig = event({}, 2 ** 31, sessionId);
    const largest = event({}, 2 ** 31 - 1, sessionId);
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: [tooBig, largest] },
    });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(1);
    expect(r.body.rejected).toEqual([
      expect.objectContaining({ index: 0, errors: [expect.objectContaining({ path: 'events.0.sequence' })] }),
    ]);
    const stored = await waitFor(async () => {
      const rows = await stack.prisma.event.findMany({ where: { sessionId } });
      return rows.length === 1 ? rows : undefined;
    });
    expect(stored[0]).toMatchObject({ id: largest.id, sequence: 2 ** 31 - 1 });
  });

  test('NUL and lone surrogates in content are stored as U+FFFD, never dead-lettered', async () => {
    const sessionId = newId();
    const contents = ['nul:\u0000:end', 'high:\uD800:end', 'low:\uDC00:end', 'pair:\uD83D\uDE00:end'];
    const events = contents.map((content, i) =>
      event({ type: 'agent.message.logged', data: { role: 'tool', content } }, i + 1, sessionId),
    );
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events },
    });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ accepted: 4, rejected: [] });
    const rows = await waitFor(async () => {
      const x = await stack.prisma.event.findMany({ where: { sessionId }, orderBy: { sequence: 'asc' } });
      return x.length === 4 ? x : undefined;
    });
    expect(rows.map((e) => (e.data as { content: string }).content)).toEqual([
      'nul:\uFFFD:end',
      'high:\uFFFD:end',
      'low:\uFFFD:end',
      'pair:\uD83D\uDE00:end',
    ]);
  });

  test('NUL and lone surrogates in query parameters → 200, not 500', async () => {
    for (const path of [
      '/v1/audit?entityId=%00',
      '/v1/audit?entityId=a%ED%A0%80b',
      '/v1/sessions?q=%00',
      '/v1/sessions?q=x%ED%B0%80',
      '/v1/events?type=%00',
    ]) {
      const r = await call(stack.apiUrl, 'GET', path, { apiKey: stack.apiKey });
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.body.items).toEqual([]);
    }
  });

  test('NUL and lone surrogates in identify metadata and capabilities are stored as U+FFFD', async () => {
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      // Raw JSON: the escapes reach the server as written.
      rawBody:
        '{"agent":{"key":"nul-agent","name":"n\\u0000a"},"version":{"version":"v\\u00001",' +
        '"metadata":{"model\\ud800":"gpt\\u0000","nested":{"x":["\\udc00"]}}}}',
    });
    expect(id.status).toBe(200);
    const version = await stack.prisma.agentVersion.findUniqueOrThrow({
      where: { id: id.body.agentVersionId },
    });
    expect(version.version).toBe('v\uFFFD1');
    expect(version.metadata).toEqual({ 'model\uFFFD': 'gpt\uFFFD', nested: { x: ['\uFFFD'] } });
    const agent = await stack.prisma.agent.findUniqueOrThrow({ where: { id: id.body.agentId } });
    expect(agent.name).toBe('n\uFFFDa');

    const caps = await call(
      stack.gatewayUrl,
      'PUT',
      `/v1/agents/${id.body.agentId}/versions/${id.body.agentVersionId}/capabilities`,
      {
        apiKey: stack.apiKey,
        rawBody: '{"capabilities":[{"name":"send\\u0000money","description":"\\ud800 lone"}]}',
      },
    );
    expect(caps.status).toBe(200);
    const after = await stack.prisma.agentVersion.findUniqueOrThrow({
      where: { id: id.body.agentVersionId },
    });
    expect(after.capabilities).toEqual([
      expect.objectContaining({ name: 'send\uFFFDmoney', description: '\uFFFD lone' }),
    ]);
  });

  test('__proto__ and constructor keys inside data are stored as data, and pollute nothing', async () => {
    const sessionId = newId();
    const e = event(
      { type: 'agent.session.started', data: { inputSummary: 'proto', attributes: '__PAYLOAD__' } },
      1,
      sessionId,
    );
    const custom = event({ data: { name: 'proto', data: '__PAYLOAD__' } }, 2, sessionId);
    const payload = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"ok":1}';
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      rawBody: `{"events":[${withPayload(e, payload)},${withPayload(custom, payload)}]}`,
    });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ accepted: 2, rejected: [] });
    const rows = await waitFor(async () => {
      const x = await stack.prisma.event.findMany({ where: { sessionId }, orderBy: { sequence: 'asc' } });
      return x.length === 2 ? x : undefined;
    });
    const stored = [
      (rows[0]!.data as { attributes: object }).attributes,
      (rows[1]!.data as { data: object }).data,
    ];
    for (const value of stored) {
      // jsonb orders keys by itself; what matters is that each is an own data property with its value.
      expect(Object.keys(value).sort()).toEqual(['__proto__', 'constructor', 'ok']);
      expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
      expect(Object.getOwnPropertyDescriptor(value, 'constructor')?.value).toEqual({
        prototype: { polluted: true },
      });
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  test('a wrong method on a known path → 405 problem with Allow; OPTIONS lists every method', async () => {
    const cases: [string, string, string, string][] = [
      [stack.gatewayUrl, 'PUT', '/v1/events', 'POST'],
      [stack.gatewayUrl, 'GET', '/v1/agents/identify', 'POST'],
      [stack.apiUrl, 'DELETE', '/v1/sessions', 'GET, HEAD'],
      [stack.apiUrl, 'PUT', '/v1/policies/backtest', 'POST'],
      [stack.apiUrl, 'POST', `/v1/sessions/${newId()}`, 'DELETE, GET, HEAD'],
    ];
    for (const [url, method, path, allow] of cases) {
      const r = await call(url, method, path, { apiKey: stack.apiKey });
      expect([method, path, r.status, r.headers.get('allow')]).toEqual([method, path, 405, allow]);
      expect(r.headers.get('content-type')).toContain(problemType);
      expect(r.body.code).toBe('method_not_allowed');
    }
    const o = await call(stack.apiUrl, 'OPTIONS', '/v1/policies');
    expect([o.status, o.headers.get('allow')]).toEqual([204, 'GET, HEAD, POST']);
    // No CORS grant: the CSRF rule relies on the api answering no preflight (docs/decisions.md).
    expect(o.headers.get('access-control-allow-origin')).toBeNull();
    const unknown = await call(stack.apiUrl, 'PUT', '/v1/no-such-thing', { apiKey: stack.apiKey });
    expect(unknown.status).toBe(404);
  });
});
