import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { newId } from '@agent-warden/contracts';
import { call, waitFor } from '../support/http';
import { signedInPage, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * LLM calls in the dashboard (issue 16 item 2; docs/architecture.md#llm-calls), in headless
 * Chromium against `npm start`'s process with an operator price file: the agent page charts tokens
 * and cost, latency percentiles, event rate and error rate, with the totals and a row per model;
 * the session page shows the session's cost and its calls, and a call's detail its cost and where
 * it came from. Expected figures are computed here by hand. Screenshots go to
 * `.artifacts/screenshots/` (git-ignored).
 */

const ROOT = path.resolve(__dirname, '../..');
const SHOTS = path.join(ROOT, '.artifacts/screenshots');
const API_KEY = 'wk_e2e_llm_usage_key_0123456789abcdef01';
const ADMIN = { email: 'admin@llm.test', password: 'correct horse battery staple' };

let warden: DashboardStack;
let page: Page;
let dir: string;
let agentId: string;
const sessionId = newId();

jest.setTimeout(180_000);

/** Percentile by linear interpolation between the closest ranks (PostgreSQL's `percentile_cont`). */
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const pos = p * (s.length - 1);
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.ceil(pos)]! - s[lo]!) * (pos - lo);
}

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-e2e-prices-'));
  const prices = path.join(dir, 'prices.json');
  fs.writeFileSync(
    prices,
    JSON.stringify({
      prices: [{ provider: 'acme', model: 'house-model', inputPerMTok: 1, outputPerMTok: 2 }],
    }),
  );
  warden = await startDashboardStack({
    apiKey: API_KEY,
    admin: ADMIN,
    env: { WARDEN_LLM_PRICES_FILE: prices },
  });
  const id = await call(warden.url, 'POST', '/v1/agents/identify', {
    apiKey: API_KEY,
    body: { agent: { key: 'e2e-llm-agent', name: 'Support agent' }, version: { version: '1.0.0' } },
  });
  expect(id.status).toBe(200);
  agentId = id.body.agentId;
  const agentVersionId = id.body.agentVersionId;
  // Two hours ago: inside the agent page's default window (the last 24 hours by hour).
  const t0 = Date.now() - 2 * 3_600_000;
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => ({
    id: newId(),
    time: new Date(t0 + ++sequence * 1000).toISOString(),
    sessionId,
    agentId,
    agentVersionId,
    sequence,
    type,
    data,
  });
  const toolCallId = newId();
  const events = [
    event('agent.session.started', { inputSummary: 'Answer a refund question' }),
    event('agent.llm.called', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 1000,
      outputTokens: 500,
      durationMs: 100,
    }),
    event('agent.tool.started', { toolCallId, toolName: 'lookup_order', arguments: { order: '1234' } }),
    event('agent.tool.failed', {
      toolCallId,
      toolName: 'lookup_order',
      error: { message: 'timeout' },
      durationMs: 50,
    }),
    event('agent.llm.called', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 2000,
      outputTokens: 100,
      durationMs: 300,
    }),
    event('agent.llm.called', {
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      inputTokens: 50,
      outputTokens: 20,
      durationMs: 200,
      costUsd: 1.25,
    }),
    event('agent.llm.called', {
      provider: 'acme',
      model: 'house-model',
      inputTokens: 1000,
      outputTokens: 1000,
      durationMs: 250,
    }),
    event('agent.llm.called', {
      provider: 'acme',
      model: 'mystery-model',
      inputTokens: 10,
      outputTokens: 0,
      durationMs: 400,
      error: { type: 'RateLimitError', message: '429 Too Many Requests' },
    }),
    event('agent.session.ended', { status: 'completed' }),
  ];
  const r = await call(warden.url, 'POST', '/v1/events', { apiKey: API_KEY, body: { events } });
  expect(r.status).toBe(202);
  await waitFor(async () => {
    const s = await call(warden.url, 'GET', `/v1/sessions/${sessionId}?eventsLimit=0`, { apiKey: API_KEY });
    return s.status === 200 && s.body.eventCount === events.length && s.body.llm.calls === 5;
  }, 60_000);
  page = await signedInPage(warden, ADMIN);
});

afterAll(async () => {
  await warden?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const mini = (1000 * 0.15 + 500 * 0.6 + 2000 * 0.15 + 100 * 0.6) / 1e6; // $0.00081
const house = (1000 * 1 + 1000 * 2) / 1e6; // $0.003
const total = mini + 1.25 + house;

test('the agent page charts tokens and cost, latency percentiles, event rate and error rate', async () => {
  await page.goto(`${warden.url}/agents/${agentId}`);
  const usage = page.getByTestId('agent-usage');
  await usage.getByTestId('usage-calls').waitFor();
  expect(await usage.getByTestId('usage-calls').textContent()).toContain('5');
  expect(await usage.getByTestId('usage-tokens').textContent()).toContain(
    `${(1000 + 2000 + 50 + 1000 + 10) / 1000}k`,
  );
  expect(await usage.getByTestId('usage-cost').textContent()).toContain(`$${total.toFixed(2)}`);
  expect(await usage.getByTestId('usage-unpriced').textContent()).toContain('1');
  expect(await usage.getByTestId('usage-errors').textContent()).toContain('1');
  const p95 = Math.round(percentile([100, 300, 200, 250, 400], 0.95));
  expect(await usage.getByTestId('usage-p95').textContent()).toContain(`${p95} ms`);

  // Each chart is drawn with its series for the bucket that holds the calls.
  for (const id of ['chart-tokens-cost', 'chart-latency', 'chart-events', 'chart-errors']) {
    const chart = usage.getByTestId(id);
    await chart.locator('svg.recharts-surface').first().waitFor();
  }
  await usage.getByTestId('chart-tokens-cost').locator('.recharts-bar-rectangle path').first().waitFor();
  await usage.getByTestId('chart-events').locator('.recharts-bar-rectangle path').first().waitFor();
  await usage.getByTestId('chart-errors').locator('.recharts-bar-rectangle path').first().waitFor();
  expect(await usage.getByTestId('chart-latency').locator('.recharts-line').count()).toBe(3);

  // One row per model with its own figures.
  const rows = usage.getByTestId('usage-models').locator('tbody tr');
  expect(await rows.count()).toBe(4);
  const miniRow = (await rows.filter({ hasText: 'gpt-4o-mini' }).textContent()) ?? '';
  expect(miniRow).toContain(`$${Number(mini.toPrecision(3))}`);
  expect(miniRow).toContain('3,000');
  const mysteryRow = (await rows.filter({ hasText: 'mystery-model' }).textContent()) ?? '';
  expect(mysteryRow).toContain('unknown');
  await usage.screenshot({ path: path.join(SHOTS, 'agent-usage.png') });
});

test("the session page shows the session's cost and its LLM calls, each with its cost in the detail", async () => {
  await page.goto(`${warden.url}/sessions/${sessionId}`);
  const cost = page.getByTestId('session-cost');
  await cost.waitFor();
  expect(await cost.textContent()).toContain(`$${total.toFixed(2)}`);
  const panel = page.getByTestId('llm-calls');
  expect(await panel.getByTestId('llm-calls-cost').textContent()).toBe(`$${total.toFixed(2)}`);
  const calls = panel.getByTestId('llm-call');
  await calls.nth(4).waitFor(); // the calls load after the session
  expect(await calls.count()).toBe(5);
  expect(await panel.textContent()).toContain('1 call of models without a price');

  // A call priced by the operator's file, and the one the agent priced itself.
  await calls.filter({ hasText: 'house-model' }).click();
  const detail = page.getByTestId('llm-call-detail');
  await detail.waitFor();
  expect(await detail.getByTestId('llm-call-cost').textContent()).toBe(`$${Number(house.toPrecision(3))}`);
  expect(await detail.textContent()).toContain('cost from the price table');
  await calls.filter({ hasText: 'claude-sonnet-4' }).click();
  await detail.getByText('cost from the agent').waitFor();
  expect(await detail.getByTestId('llm-call-cost').textContent()).toBe('$1.25');
  await page.screenshot({ path: path.join(SHOTS, 'session-llm-calls.png') });

  // The sessions list shows the cost on the session's row.
  await page.goto(`${warden.url}/sessions`);
  const row = page.getByTestId('session-row-cost').first();
  await row.waitFor();
  expect(await row.textContent()).toBe(`$${total.toFixed(2)}`);
});
