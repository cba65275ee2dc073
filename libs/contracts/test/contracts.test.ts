import {
  AgentEvent,
  effectiveDecision,
  fromCloudEvent,
  mostSevere,
  newId,
  isUuidV7,
  toCloudEvent,
  buildOpenApiDocument,
  EVENT_TYPES,
  type Decision,
} from '../src';

const base = () => ({
  id: newId(),
  time: '2026-11-21T15:18:04.123Z',
  sessionId: newId(),
  agentId: newId(),
  agentVersionId: newId(),
  sequence: 1,
});

describe('decision semantics (docs/architecture.md#guard-decision)', () => {
  test('most severe: block > require_approval > warn > allow, default when nothing matched', () => {
    const order: Decision[] = ['allow', 'warn', 'require_approval', 'block'];
    for (let i = 0; i < order.length; i++)
      for (let j = 0; j < order.length; j++)
        expect(mostSevere([order[i]!, order[j]!], 'allow')).toBe(order[Math.max(i, j)]);
    expect(mostSevere([], 'warn')).toBe('warn');
  });
  test('monitor maps everything but allow to warn; enforce keeps the policy decision', () => {
    expect(
      ['allow', 'warn', 'require_approval', 'block'].map((d) => effectiveDecision(d as Decision, 'monitor')),
    ).toEqual(['allow', 'warn', 'warn', 'warn']);
    for (const d of ['allow', 'warn', 'require_approval', 'block'] as Decision[])
      expect(effectiveDecision(d, 'enforce')).toBe(d);
  });
});

describe('event envelope', () => {
  test('ids are UUIDv7, time ordered', () => {
    const a = newId();
    const b = newId();
    expect(isUuidV7(a)).toBe(true);
    expect(a < b).toBe(true);
  });
  test('every event type has a schema; runId is required for run events', () => {
    expect(EVENT_TYPES).toHaveLength(15);
    const r = AgentEvent.safeParse({ ...base(), type: 'agent.run.started', data: {} });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['runId']);
    expect(
      AgentEvent.safeParse({ ...base(), runId: newId(), type: 'agent.run.started', data: {} }).success,
    ).toBe(true);
  });
  test('a UUIDv4 event id is refused with a clear message', () => {
    const r = AgentEvent.safeParse({
      ...base(),
      id: '9b2f4c3e-8a1d-4f6b-9c2e-1a2b3c4d5e6f',
      type: 'agent.custom',
      data: { name: 'x' },
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ['id'], message: expect.stringContaining('UUIDv7') });
  });
});

describe('CloudEvents mapping', () => {
  test('round trip keeps every envelope field; key fields map to CloudEvents attributes', () => {
    const e = AgentEvent.parse({
      ...base(),
      runId: newId(),
      parentId: newId(),
      type: 'agent.tool.failed',
      data: { toolCallId: newId(), toolName: 'send_money', error: { message: 'no funds' }, durationMs: 12 },
    });
    const ce = toCloudEvent('7f000000-0000-7000-8000-000000000001', e);
    expect(ce).toMatchObject({
      specversion: '1.0',
      id: e.id,
      type: 'agent.tool.failed',
      source: `/projects/7f000000-0000-7000-8000-000000000001/agents/${e.agentId}`,
      subject: e.runId,
      sessionid: e.sessionId,
      datacontenttype: 'application/json',
    });
    const back = fromCloudEvent(JSON.parse(JSON.stringify(ce)));
    expect(back.projectId).toBe('7f000000-0000-7000-8000-000000000001');
    expect(back.event).toEqual(e);
  });
});

describe('OpenAPI 3.1 document', () => {
  test('is generated from the schemas with the ingest endpoints and problem responses', () => {
    const doc = buildOpenApiDocument();
    expect(doc.openapi).toBe('3.1.0');
    const post = doc.paths!['/v1/events']!.post!;
    expect(Object.keys(post.responses!)).toEqual(expect.arrayContaining(['202', '400', '401', '413', '503']));
    expect(doc.components!.schemas!.AgentEvent).toBeDefined();
    expect(doc.components!.schemas!.Problem).toBeDefined();
  });

  test("documents a session's paged events: eventsLimit on the session, limit and cursor on its events", () => {
    const doc = buildOpenApiDocument();
    const names = (path: string) =>
      (doc.paths![path]!.get!.parameters ?? []).map((p) => ('name' in p ? p.name : p.$ref));
    expect(names('/v1/sessions/{sessionId}')).toEqual(['sessionId', 'eventsLimit']);
    expect(names('/v1/sessions/{sessionId}/events')).toEqual(['sessionId', 'limit', 'cursor']);
    expect(names('/v1/sessions/{sessionId}/intelligence')).toEqual(['sessionId', 'version']);
  });
});
