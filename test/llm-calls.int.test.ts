import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '@agent-warden/contracts';
import { call, waitFor } from './support/http';
import { createTestProject } from './support/projects';
import { startTestStack, type TestStack } from './support/stack';

/** Percentile by linear interpolation between the closest ranks (PostgreSQL's `percentile_cont`). */
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const pos = p * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/**
 * LLM calls on the real stack (docs/architecture.md#llm-calls): `agent.llm.called` events go
 * gateway → Kafka → projector → `llm_calls`, priced by the default table, by the operator's price
 * file (`WARDEN_LLM_PRICES_FILE`) or by the caller, or left unknown; read back through the api (the
 * session's calls, its totals on the session and the sessions list, usage buckets with latency
 * percentiles, activity) and from PostgreSQL. Every expected figure is computed here by hand.
 */
describe('LLM calls: stored once, priced, served', () => {
  let stack: TestStack;
  let agentId: string;
  let agentVersionId: string;
  const sessionId = newId();
  const dir = mkdtempSync(join(tmpdir(), 'warden-llm-prices-'));
  const pricesFile = join(dir, 'prices.json');
  // The operator's file adds a model the defaults do not know.
  writeFileSync(
    pricesFile,
    JSON.stringify({
      prices: [
        { provider: 'acme', model: 'house-model', inputPerMTok: 2, cachedInputPerMTok: 1, outputPerMTok: 4 },
      ],
    }),
  );
  // Two whole UTC hours in the past: calls 1–3 in the first, 4–5 in the second.
  const hour0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000;
  const at = (minutes: number) => new Date(hour0 + minutes * 60_000).toISOString();

  beforeAll(async () => {
    stack = await startTestStack({ env: { WARDEN_LLM_PRICES_FILE: pricesFile } });
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'llm-agent' }, version: { version: '1.0.0' } },
    });
    expect(id.status).toBe(200);
    ({ agentId, agentVersionId } = id.body);
    makeEvents();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const api = (path: string) => call(stack.apiUrl, 'GET', path, { apiKey: stack.apiKey });
  const ingest = (events: unknown[]) =>
    call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, body: { events } });
  const envelope = (sequence: number, minutes: number, type: string, data: Record<string, unknown>) => ({
    id: newId(),
    time: at(minutes),
    sessionId,
    agentId,
    agentVersionId,
    sequence,
    type,
    data,
  });

  const claudeCallId = newId();
  type Envelope = ReturnType<typeof envelope>;
  let started: Envelope,
    mini1: Envelope,
    mini2: Envelope,
    claude: Envelope,
    unknown: Envelope,
    house: Envelope,
    toolStarted: Envelope,
    toolFailed: Envelope;
  let batch: Envelope[];
  /** The events, made once the agent is registered. */
  function makeEvents() {
    started = envelope(1, 1, 'agent.session.started', { inputSummary: 'price the calls' });
    // 1. gpt-4o-mini snapshot, default table: 0.15 / 0.075 cached / 0.60 per million.
    mini1 = envelope(2, 10, 'agent.llm.called', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      responseModel: 'gpt-4o-mini-2024-07-18',
      inputTokens: 1000,
      cachedInputTokens: 200,
      outputTokens: 500,
      durationMs: 100,
      finishReasons: ['stop'],
    });
    // 2. gpt-4o-mini again.
    mini2 = envelope(3, 20, 'agent.llm.called', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 2000,
      outputTokens: 100,
      durationMs: 300,
    });
    // 3. The caller knows the cost.
    claude = envelope(4, 30, 'agent.llm.called', {
      llmCallId: claudeCallId,
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      inputTokens: 50,
      outputTokens: 20,
      durationMs: 200,
      costUsd: 0.01,
    });
    // 4. A model nobody prices, failed.
    unknown = envelope(5, 70, 'agent.llm.called', {
      provider: 'acme',
      model: 'mystery-model',
      inputTokens: 10,
      outputTokens: 10,
      durationMs: 400,
      error: { type: 'RateLimitError', message: '429 Too Many Requests' },
    });
    // 5. Priced by the operator's file: 2 / 1 cached / 4 per million.
    house = envelope(6, 80, 'agent.llm.called', {
      provider: 'acme',
      model: 'house-model-v2',
      inputTokens: 1_000_000,
      cachedInputTokens: 500_000,
      outputTokens: 1000,
      durationMs: 1000,
    });
    toolStarted = envelope(7, 85, 'agent.tool.started', {
      toolCallId: newId(),
      toolName: 'lookup',
      arguments: {},
    });
    toolFailed = envelope(8, 86, 'agent.tool.failed', {
      toolCallId: toolStarted.data.toolCallId as string,
      toolName: 'lookup',
      error: { message: 'timeout' },
      durationMs: 1000,
    });
    batch = [started, mini1, mini2, claude, unknown, house, toolStarted, toolFailed];
  }

  const cost1 = (800 * 0.15 + 200 * 0.075 + 500 * 0.6) / 1e6;
  const cost2 = (2000 * 0.15 + 100 * 0.6) / 1e6;
  const cost5 = (500_000 * 2 + 500_000 * 1 + 1000 * 4) / 1e6;

  const storedRows = () =>
    stack.prisma.$queryRaw<
      {
        id: string;
        event_id: string;
        model: string;
        cost_usd: number | null;
        cost_source: string | null;
        error_type: string | null;
      }[]
    >`SELECT id::text, event_id::text, model, cost_usd, cost_source, error_type FROM llm_calls
       WHERE project_id = ${stack.projectId}::uuid AND session_id = ${sessionId}::uuid ORDER BY time`;

  test('the calls are stored once each, also when the batch is sent again, with their cost and its source', async () => {
    const first = await ingest(batch);
    expect(first.body).toMatchObject({ rejected: [] });
    expect(first.status).toBe(202);
    expect(first.body.rejected).toEqual([]);
    // A client retry of the whole batch, and another event repeating the claude call's llmCallId.
    expect((await ingest(batch)).status).toBe(202);
    const repeat = envelope(9, 31, 'agent.llm.called', {
      llmCallId: claudeCallId,
      model: 'claude-sonnet-4-20250514',
      costUsd: 99,
    });
    expect((await ingest([repeat])).status).toBe(202);
    await waitFor(
      async () =>
        (await stack.prisma.event.count({ where: { projectId: stack.projectId, sessionId } })) === 9,
      60_000,
    );
    const rows = await storedRows();
    expect(rows).toHaveLength(5);
    const byEvent = new Map(rows.map((r) => [r.event_id, r]));
    expect(byEvent.get(mini1.id)).toMatchObject({ id: mini1.id, cost_source: 'price_table' });
    expect(byEvent.get(mini1.id)!.cost_usd).toBeCloseTo(cost1, 12);
    expect(byEvent.get(mini2.id)!.cost_usd).toBeCloseTo(cost2, 12);
    expect(byEvent.get(claude.id)).toMatchObject({ id: claudeCallId, cost_usd: 0.01, cost_source: 'client' });
    expect(byEvent.get(unknown.id)).toMatchObject({
      cost_usd: null,
      cost_source: null,
      error_type: 'RateLimitError',
    });
    expect(byEvent.get(house.id)).toMatchObject({ cost_source: 'price_table' });
    expect(byEvent.get(house.id)!.cost_usd).toBeCloseTo(cost5, 12);
  });

  test("the session's calls come back through the api, oldest first", async () => {
    const r = await api(`/v1/sessions/${sessionId}/llm-calls`);
    expect(r.status).toBe(200);
    expect(r.body.items.map((c: { eventId: string }) => c.eventId)).toEqual([
      mini1.id,
      mini2.id,
      claude.id,
      unknown.id,
      house.id,
    ]);
    expect(r.body.items[0]).toMatchObject({
      id: mini1.id,
      sessionId,
      agentId,
      agentVersionId,
      operation: 'chat',
      provider: 'openai',
      model: 'gpt-4o-mini',
      responseModel: 'gpt-4o-mini-2024-07-18',
      inputTokens: 1000,
      cachedInputTokens: 200,
      outputTokens: 500,
      durationMs: 100,
      costSource: 'price_table',
      finishReasons: ['stop'],
      error: null,
    });
    expect(r.body.items[3]).toMatchObject({
      costUsd: null,
      costSource: null,
      error: { type: 'RateLimitError', message: '429 Too Many Requests' },
    });
    expect((await api(`/v1/sessions/${newId()}/llm-calls`)).status).toBe(404);
  });

  test('the session and its row in the sessions list carry its totals: known costs summed, unknown counted apart', async () => {
    const expected = {
      calls: 5,
      errors: 1,
      inputTokens: 1000 + 2000 + 50 + 10 + 1_000_000,
      outputTokens: 500 + 100 + 20 + 10 + 1000,
      cachedInputTokens: 200 + 500_000,
      unpricedCalls: 1,
    };
    const cost = cost1 + cost2 + 0.01 + cost5;
    const detail = await api(`/v1/sessions/${sessionId}?eventsLimit=0`);
    expect(detail.status).toBe(200);
    expect(detail.body.llm).toMatchObject(expected);
    expect(detail.body.llm.costUsd).toBeCloseTo(cost, 10);
    const list = await api(`/v1/sessions?agentId=${agentId}`);
    expect(list.status).toBe(200);
    const row = list.body.items.find((s: { id: string }) => s.id === sessionId);
    expect(row.llm).toMatchObject(expected);
    expect(row.llm.costUsd).toBeCloseTo(cost, 10);
  });

  test('usage per hour, per model and in total, with latency percentiles', async () => {
    const from = new Date(hour0).toISOString();
    const to = new Date(hour0 + 3 * 3_600_000).toISOString();
    const r = await api(`/v1/llm/usage?agentId=${agentId}&from=${from}&to=${to}&bucket=hour`);
    expect(r.status).toBe(200);
    expect(r.body.items.map((b: { start: string }) => b.start)).toEqual([
      new Date(hour0).toISOString(),
      new Date(hour0 + 3_600_000).toISOString(),
      new Date(hour0 + 2 * 3_600_000).toISOString(),
    ]);
    const [h0, h1, h2] = r.body.items;
    expect(h0).toMatchObject({ calls: 3, errors: 0, inputTokens: 3050, outputTokens: 620, unpricedCalls: 0 });
    expect(h0.costUsd).toBeCloseTo(cost1 + cost2 + 0.01, 12);
    expect(h0.latencyMs.p50).toBeCloseTo(percentile([100, 300, 200], 0.5), 9);
    expect(h0.latencyMs.p95).toBeCloseTo(percentile([100, 300, 200], 0.95), 9);
    expect(h0.latencyMs.p99).toBeCloseTo(percentile([100, 300, 200], 0.99), 9);
    expect(h0.latencyMs.p95).toBeCloseTo(290, 9);
    expect(h1).toMatchObject({
      calls: 2,
      errors: 1,
      inputTokens: 1_000_010,
      outputTokens: 1010,
      unpricedCalls: 1,
    });
    expect(h1.costUsd).toBeCloseTo(cost5, 12);
    expect(h1.latencyMs.p50).toBeCloseTo(700, 9);
    expect(h2).toMatchObject({ calls: 0, costUsd: null, latencyMs: { p50: null, p95: null, p99: null } });

    const mini = r.body.models.find((m: { model: string }) => m.model === 'gpt-4o-mini');
    expect(mini).toMatchObject({ provider: 'openai', calls: 2, inputTokens: 3000, outputTokens: 600 });
    expect(mini.costUsd).toBeCloseTo(cost1 + cost2, 12);
    expect(mini.latencyMs.p50).toBeCloseTo(200, 9);
    expect(mini.buckets.map((b: { start: string }) => b.start)).toEqual([new Date(hour0).toISOString()]);
    const mystery = r.body.models.find((m: { model: string }) => m.model === 'mystery-model');
    expect(mystery).toMatchObject({ calls: 1, errors: 1, costUsd: null, unpricedCalls: 1 });

    const all = [100, 300, 200, 400, 1000];
    expect(r.body.totals).toMatchObject({ calls: 5, errors: 1, unpricedCalls: 1 });
    expect(r.body.totals.costUsd).toBeCloseTo(cost1 + cost2 + 0.01 + cost5, 10);
    expect(r.body.totals.latencyMs.p99).toBeCloseTo(percentile(all, 0.99), 9);

    // Another agent's figures do not mix in; a bad bucket is a 400 naming it.
    const other = await api(`/v1/llm/usage?agentId=${newId()}&from=${from}&to=${to}`);
    expect(other.body.totals.calls).toBe(0);
    const bad = await api(`/v1/llm/usage?bucket=week`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(bad.body.errors)).toContain('bucket');
    const empty = await api(`/v1/llm/usage?from=${to}&to=${from}`);
    expect(empty.status).toBe(400);
  });

  test('activity: events, tool failures and LLM errors per hour', async () => {
    const from = new Date(hour0).toISOString();
    const to = new Date(hour0 + 2 * 3_600_000).toISOString();
    const r = await api(`/v1/stats/activity?agentId=${agentId}&from=${from}&to=${to}&bucket=hour`);
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([
      // session.started, 2 × gpt-4o-mini, the claude call and its repeat.
      { start: from, events: 5, toolCalls: 0, toolFailures: 0, llmCalls: 4, llmErrors: 0 },
      {
        start: new Date(hour0 + 3_600_000).toISOString(),
        events: 4,
        toolCalls: 1,
        toolFailures: 1,
        llmCalls: 2,
        llmErrors: 1,
      },
    ]);
  });
  test("the version comparison sums each version's LLM cost and tokens over its sessions", async () => {
    // Version 2.0.0: one session with one gpt-4o call (2.50 / 10.00 per million).
    const v2 = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'llm-agent' }, version: { version: '2.0.0' } },
    });
    expect(v2.status).toBe(200);
    const session2 = newId();
    const base = { sessionId: session2, agentId, agentVersionId: v2.body.agentVersionId };
    const r = await ingest([
      { ...base, id: newId(), time: at(90), sequence: 1, type: 'agent.session.started', data: {} },
      {
        ...base,
        id: newId(),
        time: at(91),
        sequence: 2,
        type: 'agent.llm.called',
        data: { provider: 'openai', model: 'gpt-4o', inputTokens: 4000, outputTokens: 1000, durationMs: 50 },
      },
    ]);
    expect(r.status).toBe(202);
    await waitFor(
      async () =>
        (await stack.prisma.llmCall.count({ where: { projectId: stack.projectId, sessionId: session2 } })) ===
        1,
      60_000,
    );
    const from = new Date(hour0).toISOString();
    const cmp = await api(
      `/v1/agents/${agentId}/compare?versions=${agentVersionId},${v2.body.agentVersionId}&from=${from}`,
    );
    expect(cmp.status).toBe(200);
    const [one, two] = cmp.body.versions;
    expect(one.cost).toMatchObject({ calls: 5, unpricedCalls: 1 });
    expect(one.cost.totalUsd).toBeCloseTo(cost1 + cost2 + 0.01 + cost5, 10);
    expect(one.cost.perSessionUsd).toBeCloseTo(cost1 + cost2 + 0.01 + cost5, 10);
    expect(one.tokens).toEqual({
      input: 1000 + 2000 + 50 + 10 + 1_000_000,
      output: 500 + 100 + 20 + 10 + 1000,
      perSession: 1000 + 2000 + 50 + 10 + 1_000_000 + 500 + 100 + 20 + 10 + 1000,
    });
    expect(two.cost).toMatchObject({ calls: 1, unpricedCalls: 0 });
    expect(two.cost.totalUsd).toBeCloseTo((4000 * 2.5 + 1000 * 10) / 1e6, 12);
    expect(two.tokens).toEqual({ input: 4000, output: 1000, perSession: 5000 });
    expect(cmp.body.notes.join(' ')).toContain('1 LLM call(s) of models without a price');
  });
  test('another project sees none of these calls, totals or usage', async () => {
    const other = await createTestProject(stack, 'llm-other');
    const get = (path: string) => call(stack.apiUrl, 'GET', path, { apiKey: other.apiKey });
    expect((await get(`/v1/sessions/${sessionId}/llm-calls`)).status).toBe(404);
    const from = new Date(hour0).toISOString();
    const usage = await get(`/v1/llm/usage?agentId=${agentId}&from=${from}`);
    expect(usage.status).toBe(200);
    expect(usage.body.totals.calls).toBe(0);
    expect(usage.body.models).toEqual([]);
    const all = await get(`/v1/llm/usage?from=${from}`);
    expect(all.body.totals.calls).toBe(0);
    const activity = await get(`/v1/stats/activity?from=${from}`);
    expect(activity.body.items.every((b: { events: number }) => b.events === 0)).toBe(true);
  });
});
