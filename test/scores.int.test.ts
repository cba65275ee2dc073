import { WardenClient } from '@agent-warden/client';
import { newId } from '@agent-warden/contracts';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * Scores on the real stack (docs/architecture.md#scores): `agent.score.recorded` events go gateway →
 * Kafka → projector → `scores`, stored once per score id; `POST /v1/sessions/{id}/scores` validates,
 * stores at once and is idempotent by `scoreId`; the session view and the scores route return them.
 * Every check reads the rows back from PostgreSQL.
 */
describe('scores: events and the scores route', () => {
  let stack: TestStack;
  let agentId: string;
  let agentVersionId: string;
  const sessionId = newId();
  const runId = newId();

  beforeAll(async () => {
    stack = await startTestStack();
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'scores-agent' }, version: { version: '1.0.0' } },
    });
    expect(id.status).toBe(200);
    ({ agentId, agentVersionId } = id.body);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const api = (method: string, path: string, body?: unknown, apiKey = stack.apiKey) =>
    call(stack.apiUrl, method, path, { apiKey, body });
  const ingest = (events: unknown[]) =>
    call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, body: { events } });
  const rows = (sid = sessionId) =>
    stack.prisma.$queryRaw<
      {
        id: string;
        run_id: string | null;
        name: string;
        data_type: string;
        numeric_value: number | null;
        string_value: string | null;
        source: string;
        author: string;
        event_id: string | null;
        agent_version_id: string;
      }[]
    >`SELECT id::text, run_id::text, name, data_type, numeric_value, string_value, source, author,
             event_id::text, agent_version_id::text
      FROM scores WHERE project_id = ${stack.projectId}::uuid AND session_id = ${sid}::uuid ORDER BY time, id`;

  const envelope = (sequence: number, extra: Record<string, unknown> = {}) => ({
    id: newId(),
    time: new Date(Date.now() + sequence).toISOString(),
    sessionId,
    agentId,
    agentVersionId,
    sequence,
    ...extra,
  });

  test('a score event is stored exactly once, also when resent and when another event repeats its scoreId', async () => {
    const scoreId = newId();
    const started = envelope(1, { type: 'agent.session.started', data: { inputSummary: 'book a flight' } });
    const run = envelope(2, { type: 'agent.run.started', runId, data: { name: 'book' } });
    const reward = envelope(3, {
      type: 'agent.score.recorded',
      runId,
      data: { scoreId, name: 'reward', value: 0, dataType: 'numeric', source: 'rule', comment: 'wrong seat' },
    });
    const succeeded = envelope(4, {
      type: 'agent.score.recorded',
      data: { name: 'task_succeeded', value: false, dataType: 'boolean', source: 'rule' },
    });
    const first = await ingest([started, run, reward, succeeded]);
    expect(first.status).toBe(202);
    expect(first.body.rejected).toEqual([]);
    // A client retry (same event ids) and another event carrying the same scoreId.
    const again = envelope(5, {
      type: 'agent.score.recorded',
      data: { scoreId, name: 'reward', value: 1, dataType: 'numeric', source: 'rule' },
    });
    expect((await ingest([reward, succeeded, again])).status).toBe(202);

    await waitFor(async () => {
      const n = await stack.prisma.event.count({ where: { projectId: stack.projectId, sessionId } });
      return n === 5;
    }, 60_000);
    const stored = await rows();
    expect(stored).toEqual([
      {
        id: scoreId,
        run_id: runId,
        name: 'reward',
        data_type: 'numeric',
        numeric_value: 0,
        string_value: null,
        source: 'rule',
        author: 'agent',
        event_id: reward.id,
        agent_version_id: agentVersionId,
      },
      {
        id: succeeded.id,
        run_id: null,
        name: 'task_succeeded',
        data_type: 'boolean',
        numeric_value: 0,
        string_value: null,
        source: 'rule',
        author: 'agent',
        event_id: succeeded.id,
        agent_version_id: agentVersionId,
      },
    ]);
  });

  test('a score event whose value is not its dataType is rejected naming data.value', async () => {
    const bad = envelope(6, {
      type: 'agent.score.recorded',
      data: { name: 'reward', value: 'high', dataType: 'numeric', source: 'rule' },
    });
    const r = await ingest([bad]);
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { path: string }) => e.path)).toContain('events.0.data.value');
  });

  test('the scores route validates, naming each path, and answers problem+json', async () => {
    const r = await api('POST', `/v1/sessions/${sessionId}/scores`, {
      name: '',
      value: 'x'.repeat(201),
      dataType: 'numeric',
      source: 'oracle',
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['name', 'source', 'value']);

    const unknown = await api('POST', `/v1/sessions/${newId()}/scores`, {
      name: 'helpful',
      value: true,
      dataType: 'boolean',
    });
    expect(unknown.status).toBe(404);
    const otherRun = await api('POST', `/v1/sessions/${sessionId}/scores`, {
      name: 'helpful',
      value: true,
      dataType: 'boolean',
      runId: newId(),
    });
    expect(otherRun.status).toBe(404);
    expect(otherRun.body.errors).toEqual([{ path: 'runId', message: 'not a run of this session' }]);
    expect(await rows()).toHaveLength(2);
  });

  test('a read-only key cannot set a score', async () => {
    const key = await api('POST', '/v1/api-keys', { name: 'reader', scopes: ['read'] });
    expect(key.status).toBe(201);
    const r = await api(
      'POST',
      `/v1/sessions/${sessionId}/scores`,
      { name: 'helpful', value: true, dataType: 'boolean' },
      key.body.secret,
    );
    expect(r.status).toBe(403);
    expect(await rows()).toHaveLength(2);
  });

  test('a score set through the api is stored at once, once per scoreId, and read back on the session', async () => {
    const scoreId = newId();
    const body = {
      scoreId,
      name: 'helpfulness',
      value: 'good',
      dataType: 'categorical',
      comment: 'clear answer',
      runId,
    };
    const created = await api('POST', `/v1/sessions/${sessionId}/scores`, body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: scoreId,
      sessionId,
      runId,
      agentVersionId,
      value: 'good',
      dataType: 'categorical',
      source: 'human',
      comment: 'clear answer',
      eventId: null,
    });
    expect(created.body.author).toMatch(/^api-key:/);
    const retried = await api('POST', `/v1/sessions/${sessionId}/scores`, { ...body, value: 'bad' });
    expect(retried.status).toBe(200);
    expect(retried.body.value).toBe('good');

    const stored = (await rows()).filter((s) => s.id === scoreId);
    expect(stored).toEqual([
      expect.objectContaining({
        data_type: 'categorical',
        string_value: 'good',
        numeric_value: null,
        source: 'human',
      }),
    ]);

    const list = await api('GET', `/v1/sessions/${sessionId}/scores`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { name: string; value: unknown }) => [s.name, s.value])).toEqual([
      ['reward', 0],
      ['task_succeeded', false],
      ['helpfulness', 'good'],
    ]);
    const detail = await api('GET', `/v1/sessions/${sessionId}?eventsLimit=0`);
    expect(detail.body.scores).toEqual(list.body.items);
    expect((await api('GET', `/v1/sessions/${newId()}/scores`)).status).toBe(404);
  });

  test('a scoreId of another session is a conflict, not an answer', async () => {
    const other = newId();
    const start = { ...envelope(1, { type: 'agent.session.started', data: {} }), sessionId: other };
    expect((await ingest([start])).status).toBe(202);
    await waitFor(
      async () => (await api('GET', `/v1/sessions/${other}?eventsLimit=0`)).status === 200,
      60_000,
    );
    const [first] = await rows();
    const r = await api('POST', `/v1/sessions/${other}/scores`, {
      scoreId: first!.id,
      name: 'reward',
      value: 1,
      dataType: 'numeric',
    });
    expect(r.status).toBe(409);
    expect(r.body.errors).toEqual([{ path: 'scoreId', message: 'already used by another session' }]);
    expect(await rows(other)).toEqual([]);
  });

  test('a score sent by the TypeScript client is stored exactly once, also when the same scoreId is sent again', async () => {
    const clientSession = newId();
    const scoreId = newId();
    const client = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'scores-client' },
      sessionId: clientSession,
      flushIntervalMs: 60_000,
    });
    let clientRun = '';
    await client.withRun({ name: 'answer' }, async (run) => {
      clientRun = run.runId;
      run.score({ name: 'reward', value: 1, scoreId });
    });
    client.score({ name: 'task_succeeded', value: true, comment: 'all seats booked' });
    client.score({ name: 'reward', value: 0, scoreId }); // same id: stores nothing new
    const flushed = await client.shutdown();
    expect(flushed.failed + flushed.rejected + flushed.dropped).toBe(0);

    await waitFor(async () => {
      const n = await stack.prisma.event.count({
        where: { projectId: stack.projectId, sessionId: clientSession, type: 'agent.score.recorded' },
      });
      return n === 3;
    }, 60_000);
    const stored = await rows(clientSession);
    expect(stored.map((r) => [r.name, r.run_id, r.data_type, r.numeric_value, r.source, r.author])).toEqual([
      ['reward', clientRun, 'numeric', 1, 'rule', 'agent'],
      ['task_succeeded', null, 'boolean', 1, 'rule', 'agent'],
    ]);
    expect(stored[0]!.id).toBe(scoreId);
  });
});
