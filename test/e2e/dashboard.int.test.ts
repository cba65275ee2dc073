import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ApprovalDeniedError, WardenClient } from '@agent-warden/client';
import type { ApprovalInboxItem, RecommendationView } from '@agent-warden/contracts';
import { replayFiles } from '../../scripts/replay/replay';
import { TRAJECTORIES_DIR } from '../support/env';
import { call, waitFor } from '../support/http';
import { signIn, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * The dashboard end to end, as a person uses it (issue 6 "What it must show"): Debian's headless
 * Chromium driven by playwright-core against `npm start`'s process with the dashboard build, after
 * real trajectories were replayed through the TypeScript client. Screenshots of each main page at
 * 1440×900 go to `.artifacts/screenshots/` (git-ignored).
 */

const ROOT = path.resolve(__dirname, '../..');
const SHOTS = path.join(ROOT, '.artifacts/screenshots');
const API_KEY = 'wk_e2e_dashboard_key_0123456789abcdef';
const ADMIN = { email: 'admin@e2e.test', password: 'correct horse battery staple' };
const VIEWER = { email: 'viewer@e2e.test', password: 'viewer password 123' };

let warden: DashboardStack;
let admin: BrowserContext;
let page: Page;
const clients: WardenClient[] = [];

jest.setTimeout(180_000);

async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** An enforce-mode client of a payments agent (the test's "waiting agent"). */
function paymentsAgent(): WardenClient {
  const c = new WardenClient({
    baseUrl: warden.url,
    apiKey: API_KEY,
    agent: { key: 'e2e-payments-agent', name: 'Payments agent' },
    mode: 'enforce',
    approvalTimeoutMs: 120_000,
    flushIntervalMs: 200,
  });
  clients.push(c);
  return c;
}

/** Creates a policy through the API (admin key) and waits until the guard applies it. */
async function policyInForce(
  body: object,
  agentId: string,
  toolName: string,
  decision: string,
): Promise<void> {
  const created = await call(warden.url, 'POST', '/v1/policies', { apiKey: API_KEY, body });
  expect(created.status).toBe(201);
  await waitFor(async () => {
    const r = await call(warden.url, 'POST', '/v1/guardrails/evaluate', {
      apiKey: API_KEY,
      body: { agentId, tool: { name: toolName }, dryRun: true },
    });
    return r.body?.policyDecision === decision;
  }, 30_000);
}

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  warden = await startDashboardStack({
    apiKey: API_KEY,
    admin: ADMIN,
    env: { WARDEN_SESSION_ENDED_DELAY_MS: '200' },
  });
  // A handful of real trajectories: airline customer service and prompt-injection runs.
  for (const [file, limit] of [
    ['tau_bench_airline.jsonl', 4],
    ['agentdojo.jsonl', 3],
  ] as const) {
    const summary = await replayFiles({
      files: [path.join(TRAJECTORIES_DIR, file)],
      baseUrl: warden.url,
      apiKey: API_KEY,
      limit,
      concurrency: 4,
    });
    expect(summary.trajectories).toBe(limit);
    expect(summary.missing).toBe(0);
  }
  admin = await warden.browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
  page = await admin.newPage();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  await warden?.stop();
});

test('a person signs in and sees the replayed sessions', async () => {
  await signIn(page, warden.url, ADMIN);
  const rows = page.locator('.sessions-table tbody tr');
  await rows.first().waitFor();
  expect(await rows.count()).toBe(7);
  await shot(page, 'sessions');
});

test('opens a replayed real session, steps through its timeline and sees its intelligence', async () => {
  // The replayed airline session with the most events.
  const list = await call(warden.url, 'GET', '/v1/sessions?limit=50', { apiKey: API_KEY });
  const session = (list.body.items as { id: string; eventCount: number; inputSummary: string | null }[]).sort(
    (a, b) => b.eventCount - a.eventCount,
  )[0]!;
  await page.goto(`${warden.url}/sessions/${session.id}`);
  const position = page.getByTestId('position');
  await position.waitFor();
  expect(await position.textContent()).toBe(`1 / ${session.eventCount}`);
  expect(await page.getByTestId('event-detail').locator('h3').textContent()).toBe('Session started');

  // Step forward three times: the player moves in sequence order and the detail follows.
  const step = page.getByRole('button', { name: 'Step forward' });
  for (let i = 0; i < 3; i++) await step.click();
  expect(await position.textContent()).toBe(`4 / ${session.eventCount}`);
  const detail = await call(warden.url, 'GET', `/v1/sessions/${session.id}`, { apiKey: API_KEY });
  const fourth = (detail.body.events as { sequence: number; type: string }[])[3]!;
  expect(await page.locator('.tl-row.selected .seq').textContent()).toBe(String(fourth.sequence));
  // A tool call shows its arguments and result; stepping back works too.
  const firstTool = (detail.body.events as { type: string }[]).findIndex(
    (e) => e.type === 'agent.tool.started',
  );
  await page.getByRole('slider', { name: 'Scrub' }).fill(String(firstTool));
  expect(await position.textContent()).toBe(`${firstTool + 1} / ${session.eventCount}`);
  await page.getByText('Arguments', { exact: true }).first().waitFor();
  await page.getByRole('button', { name: 'Step back' }).click();
  expect(await position.textContent()).toBe(`${firstTool} / ${session.eventCount}`);

  // Intelligence appears once the session is analysed (the page polls); a story moment jumps to its events.
  const summary = page.getByTestId('intel-summary');
  await summary.waitFor({ timeout: 90_000 });
  expect((await summary.textContent())!.length).toBeGreaterThan(20);
  const moments = page.getByTestId('story-moment');
  const last = moments.last();
  await last.click();
  const intel = await call(warden.url, 'GET', `/v1/sessions/${session.id}/intelligence`, { apiKey: API_KEY });
  const story = intel.body.story as { eventIds: string[] }[];
  const target = (detail.body.events as { id: string }[]).findIndex(
    (e) => e.id === story[story.length - 1]!.eventIds[0],
  );
  expect(await position.textContent()).toBe(`${target + 1} / ${session.eventCount}`);
  await page.getByRole('button', { name: 'Step back' }).click();
  await shot(page, 'session');
});

test('a policy created in the editor matches a new evaluation', async () => {
  await page.goto(`${warden.url}/guardrails`);
  await page.getByRole('button', { name: 'New policy' }).click();
  await page.locator('input[name="name"]').fill('block database drops');
  await page.locator('select[name="decision"]').selectOption('block');
  await page.getByLabel('Value').fill('e2e_drop_database');
  // The rule as the API words it, and the operators of the API's registry.
  await page.getByTestId('rule-text').getByText('tool.name = "e2e_drop_database"', { exact: true }).waitFor();
  const operators = await call(warden.url, 'GET', '/v1/policy-operators', { apiKey: API_KEY });
  expect(await page.getByLabel('Operator').locator('option').allTextContents()).toEqual(
    operators.body.items.map((o: { name: string }) => o.name),
  );
  // An invalid condition first: the API's validation message is shown at its path.
  await page.getByLabel('Field').fill('tool.nme');
  await page.getByTestId('rule-text').getByText('The conditions are not complete yet.').waitFor();
  await page.getByRole('button', { name: 'Create policy' }).click();
  await page.locator('.error-list code', { hasText: 'match.all.0.field' }).waitFor();
  await page.getByLabel('Field').fill('tool.name');
  await page.getByRole('button', { name: 'Create policy' }).click();
  await page.getByText('Saved as version 1.').waitFor();
  const policyId = page.url().split('/').pop()!;

  // Dry run in the editor.
  await page.getByLabel('Sample input').fill(JSON.stringify({ tool: { name: 'e2e_drop_database' } }));
  await page.getByRole('button', { name: 'Try it' }).click();
  await page.getByTestId('dry-run-result').getByText('Matches').waitFor();
  await shot(page, 'policy-editor');

  // A new evaluation from an agent matches it.
  const agent = paymentsAgent();
  await agent.ready();
  const decision = await waitFor(async () => {
    const d = await agent.guard({ tool: { name: 'e2e_drop_database' } });
    return d.matchedGuardrails.some((m) => m.policyId === policyId) ? d : undefined;
  }, 30_000);
  expect(decision.policyDecision).toBe('block');
  await page.goto(`${warden.url}/guardrails`);
  await page.getByRole('link', { name: 'block database drops' }).waitFor();
  const row = page.locator('tr', { has: page.getByRole('link', { name: 'block database drops' }) });
  await row.getByText('tool.name = "e2e_drop_database"', { exact: true }).waitFor();
  await shot(page, 'guardrails');
});

test("an approver approves a pending call in the inbox and the waiting client's callback runs", async () => {
  const agent = paymentsAgent();
  await agent.ready();
  await policyInForce(
    {
      name: 'wire transfers need a person',
      decision: 'require_approval',
      match: { field: 'tool.name', op: 'eq', value: 'e2e_wire_money' },
      approval: { timeoutSeconds: 600, onTimeout: 'deny' },
    },
    agent.agentId!,
    'e2e_wire_money',
    'require_approval',
  );
  await page.goto(`${warden.url}/approvals`);
  await page.getByText('Nothing is waiting for you').waitFor();
  let ran = false;
  const waiting = agent.withTool(
    { name: 'e2e_wire_money', arguments: { amount: 120, to: 'ACME GmbH' } },
    async () => {
      ran = true;
      return 'sent';
    },
  );
  // The card arrives live (server-sent events), without a reload.
  const card = page.locator('article.approval', { hasText: 'e2e_wire_money' });
  await card.waitFor({ timeout: 30_000 });
  await card.getByText('ACME GmbH').waitFor();
  await card.getByText('wire transfers need a person').waitFor();
  await shot(page, 'approvals');
  expect(ran).toBe(false);
  await card.getByLabel('Comment').fill('checked with finance');
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(waiting).resolves.toBe('sent');
  expect(ran).toBe(true);
  await card.waitFor({ state: 'detached' });
  await page.getByRole('tab', { name: 'Decided' }).click();
  await page.getByText('checked with finance').waitFor();

  // The session's replay shows every transition of the approval among its events: the creation by
  // the gateway, then the decision with who made it and the comment.
  const decided = await call(warden.url, 'GET', '/v1/approvals?status=decided', { apiKey: API_KEY });
  const approval = (decided.body.items as ApprovalInboxItem[]).find((a) => a.toolName === 'e2e_wire_money')!;
  expect(approval.session).not.toBeNull();
  await page.goto(`${warden.url}/sessions/${approval.session!.id}`);
  const transitions = page.getByTestId('approval-transition');
  await transitions.filter({ hasText: `approved by user:${ADMIN.email}` }).waitFor();
  expect(await transitions.allTextContents()).toEqual([
    expect.stringContaining('approval requested (gateway)'),
    expect.stringContaining(`approval approved by user:${ADMIN.email}— checked with finance`),
  ]);
  // They are not events: the player counts and steps over events only. The client may still be
  // flushing the session's last events, which the page picks up when it polls the active session:
  // wait until the page and the stored count agree.
  const position = await waitFor(async () => {
    const session = await call(warden.url, 'GET', `/v1/sessions/${approval.session!.id}`, {
      apiKey: API_KEY,
    });
    const shown = await page.getByTestId('position').textContent();
    return shown === `1 / ${session.body.eventCount}` ? shown : undefined;
  });
  expect(position).toMatch(/^1 \/ \d+$/);
});

test('a viewer sees pending approvals but cannot approve', async () => {
  const created = await page.request.post(`${warden.url}/v1/users`, {
    data: { ...VIEWER, role: 'viewer', name: 'Vic Viewer' },
    headers: { 'x-warden-csrf': '1' },
  });
  expect(created.status()).toBe(201);
  const agent = paymentsAgent();
  await agent.ready();
  const waiting = agent.withTool({ name: 'e2e_wire_money', arguments: { amount: 9000 } }, async () => 'sent');
  const pending = await waitFor(async () => {
    const r = await call(warden.url, 'GET', '/v1/approvals?status=pending', { apiKey: API_KEY });
    return (r.body?.items as { id: string }[] | undefined)?.[0];
  });

  const viewerContext = await warden.browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const viewer = await viewerContext.newPage();
    await signIn(viewer, warden.url, VIEWER);
    await viewer.getByRole('link', { name: /Approvals/ }).click();
    const card = viewer.locator('article.approval', { hasText: 'e2e_wire_money' });
    await card.waitFor();
    await card.getByTestId('cannot-decide').waitFor();
    expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    // The API refuses too, whatever the page shows.
    const refused = await viewer.request.post(`${warden.url}/v1/approvals/${pending.id}/decision`, {
      data: { status: 'approved' },
      headers: { 'x-warden-csrf': '1' },
    });
    expect(refused.status()).toBe(403);
  } finally {
    await viewerContext.close();
  }
  // The admin denies it: the waiting client is told so.
  await page.goto(`${warden.url}/approvals`);
  await page.locator('article.approval').getByRole('button', { name: 'Deny' }).click();
  await expect(waiting).rejects.toBeInstanceOf(ApprovalDeniedError);
});

test('a recommendation is backtested, then accepted as a disabled draft policy whose versions diff', async () => {
  // The analysis of the replayed sessions recommends guardrails (data flow after untrusted content,
  // destructive calls); take the first open one.
  const rec = await waitFor(
    async () => {
      const r = await call(warden.url, 'GET', '/v1/recommendations?status=open&limit=50', {
        apiKey: API_KEY,
      });
      return (r.body?.items as RecommendationView[] | undefined)?.[0];
    },
    90_000,
    500,
  );
  await page.goto(`${warden.url}/sessions/${rec.sessionId}`);
  const item = page.locator('.session-intel li.item', { hasText: rec.title });
  await item.waitFor({ timeout: 30_000 });

  // Backtest: the editor opens with the recommended draft and runs it over the stored calls, which
  // include the calls the recommendation was drawn from.
  await item.getByRole('button', { name: 'Backtest' }).click();
  await page.waitForURL(/\/guardrails\/new$/);
  await page.getByText(`from the recommendation “${rec.title}”`).waitFor();
  const result = page.getByTestId('backtest-result');
  await result.waitFor();
  const matched = Number((await result.locator('.figure .value').nth(1).textContent())!.replace(/\D/g, ''));
  expect(matched).toBeGreaterThan(0);
  expect(await result.locator('tbody tr').count()).toBeGreaterThan(0);
  // The matched call of the recommendation's own session is listed, its link on screen (inside the panel).
  const ownSession = page.locator(`a[href^="/sessions/${rec.sessionId}?event="]`);
  const matchRow = result.locator('tbody tr', { has: ownSession }).first();
  const link = matchRow.locator(ownSession);
  const [box, panel] = [await link.boundingBox(), await result.boundingBox()];
  expect(box!.x + box!.width).toBeLessThanOrEqual(panel!.x + panel!.width);
  await shot(page, 'backtest');
  const tool = await matchRow.locator('td.mono').first().textContent();
  await link.click();
  await page.waitForURL(new RegExp(`/sessions/${rec.sessionId}\\?event=`));
  await page.getByTestId('event-detail').locator('h3', { hasText: tool! }).waitFor();

  // Create draft policy: a disabled policy, linked from the recommendation and listed in guardrails.
  await page.goto(`${warden.url}/sessions/${rec.sessionId}`);
  await item.getByRole('button', { name: 'Create draft policy' }).click();
  const open = item.getByRole('link', { name: 'Open draft policy' });
  await open.waitFor();
  const policyId = (await open.getAttribute('href'))!.split('/').pop()!;
  const decided = await call(warden.url, 'GET', `/v1/recommendations?sessionId=${rec.sessionId}&limit=50`, {
    apiKey: API_KEY,
  });
  const accepted = (decided.body.items as RecommendationView[]).find((x) => x.id === rec.id)!;
  expect(accepted.status).toBe('accepted');
  expect(accepted.policyId).toBe(policyId);
  await page.goto(`${warden.url}/guardrails`);
  const row = page.locator('tr', { has: page.getByRole('link', { name: rec.policy.name, exact: true }) });
  await row.waitFor();
  expect(await row.getAttribute('class')).toContain('disabled');
  expect(await row.getByRole('checkbox').isChecked()).toBe(false);
  expect(await row.getByRole('link', { name: rec.policy.name, exact: true }).getAttribute('href')).toBe(
    `/guardrails/${policyId}`,
  );

  // A second version with another decision; the versions tab diffs v1 → v2.
  await row.getByRole('link', { name: rec.policy.name, exact: true }).click();
  await page.waitForURL(new RegExp(`/guardrails/${policyId}$`));
  const decision = page.locator('select[name="decision"]');
  await decision.waitFor();
  const before = await decision.inputValue();
  const after = before === 'warn' ? 'block' : 'warn';
  await decision.selectOption(after);
  await page.getByRole('button', { name: 'Save new version' }).click();
  await page.getByText('Saved as version 2.').waitFor();
  await page.getByRole('tab', { name: 'Versions' }).click();
  await page.getByRole('cell', { name: 'v2', exact: true }).waitFor();
  const diff = page.locator('pre.diff');
  expect(await page.locator('.label', { hasText: 'v1 → v2' }).count()).toBe(1);
  expect((await diff.locator('.del').allTextContents()).join('')).toContain(`-   "decision": "${before}"`);
  expect((await diff.locator('.add').allTextContents()).join('')).toContain(`+   "decision": "${after}"`);
  // Lines both versions share are context, neither added nor removed.
  expect(await diff.locator('span:not(.add):not(.del)').first().textContent()).toContain(
    `"name": ${JSON.stringify(rec.policy.name)}`,
  );
  await shot(page, 'policy-versions');
});

test('an admin creates an API key, sees its secret once, and revokes it', async () => {
  await page.goto(`${warden.url}/admin/keys`);
  await page.getByLabel('Key name').fill('e2e nightly reader');
  await page.getByRole('checkbox', { name: 'ingest' }).uncheck();
  await page.getByRole('button', { name: 'Create key' }).click();
  const secretBox = page.locator('.card.secret pre');
  await secretBox.waitFor();
  const secret = (await secretBox.textContent())!.trim();
  // The new key reads; its scopes hold (no ingest).
  expect((await call(warden.url, 'GET', '/v1/sessions?limit=1', { apiKey: secret })).status).toBe(200);
  expect(
    (await call(warden.url, 'POST', '/v1/events', { apiKey: secret, body: { events: [] } })).status,
  ).toBe(403);
  const row = page.locator('tbody tr', { hasText: 'e2e nightly reader' });
  await row.waitFor();
  expect(await row.textContent()).not.toContain(secret);
  await shot(page, 'api-key-created');

  // Shown once: after a reload the secret is nowhere on the page.
  await page.reload();
  await row.waitFor();
  expect(await page.locator('.card.secret').count()).toBe(0);
  expect(await page.content()).not.toContain(secret);

  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByText(/^revoked/).waitFor();
  expect((await call(warden.url, 'GET', '/v1/sessions?limit=1', { apiKey: secret })).status).toBe(401);
});

test('a person creates a project, switches to it, sees it empty and creates an API key there', async () => {
  await page.goto(`${warden.url}/settings/projects`);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.getByLabel('Project name', { exact: true }).fill('e2e staging');
  await page.getByRole('button', { name: 'Create project' }).click();
  // The new project is listed and its settings open (its creator is its admin).
  await page.getByRole('region', { name: 'Settings of e2e staging' }).waitFor();
  await shot(page, 'projects');
  const created = await call(warden.url, 'GET', '/v1/projects', {
    headers: { cookie: (await admin.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
  });
  const staging = (created.body.items as { id: string; name: string; role: string }[]).find(
    (p) => p.name === 'e2e staging',
  )!;
  expect(staging.role).toBe('admin');

  // Switch with the switcher: the sessions list is empty, the replayed sessions stay in the first project.
  await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'e2e staging' });
  await page.waitForURL(/\/sessions$/);
  await page.getByRole('heading', { name: 'Sessions', exact: true }).waitFor();
  await page.getByRole('heading', { name: 'No sessions yet' }).waitFor();
  expect(await page.locator('.sessions-table tbody tr').count()).toBe(0);
  expect(await page.getByRole('combobox', { name: 'Project' }).inputValue()).toBe(staging.id);
  await shot(page, 'project-empty');

  // An API key of the new project: events sent with it land there, not in the first project.
  await page.goto(`${warden.url}/admin/keys`);
  await page.getByLabel('Key name').fill('e2e staging agent');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secretBox = page.locator('.card.secret pre');
  await secretBox.waitFor();
  const secret = (await secretBox.textContent())!.trim();
  const agent = new WardenClient({
    baseUrl: warden.url,
    apiKey: secret,
    agent: { key: 'e2e-staging-agent' },
    flushIntervalMs: 200,
  });
  clients.push(agent);
  await agent.ready();
  const sessionId = agent.startSession({ inputSummary: 'first run in staging' });
  agent.endSession();
  await agent.flush();
  await page.goto(`${warden.url}/sessions`);
  await page
    .locator('.sessions-table tbody tr', { hasText: 'first run in staging' })
    .waitFor({ timeout: 30_000 });
  expect(await page.locator('.sessions-table tbody tr').count()).toBe(1);
  const inFirst = await call(warden.url, 'GET', '/v1/sessions?limit=100', { apiKey: API_KEY });
  expect((inFirst.body.items as { id: string }[]).map((x) => x.id)).not.toContain(sessionId);
  await shot(page, 'project-sessions');

  // Back to the first project for the pages that follow.
  await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'default' });
  await page.waitForURL(/\/sessions$/);
  await waitFor(
    async () => (await page.getByRole('combobox', { name: 'Project' }).inputValue()) !== staging.id,
  );
  // The replayed sessions of the first project are back; the staging session is not among them.
  await waitFor(async () => (await page.locator('.sessions-table tbody tr').count()) > 1);
  expect(await page.locator('.sessions-table tbody tr', { hasText: 'first run in staging' }).count()).toBe(0);

  // Delete it from the Projects page: a wrong name in the confirmation sends nothing, its name deletes it.
  const deletes: string[] = [];
  const onRequest = (r: { method(): string; url(): string }) => {
    if (r.method() === 'DELETE' && r.url().includes('/v1/projects/')) deletes.push(r.url());
  };
  page.on('request', onRequest);
  await page.goto(`${warden.url}/settings/projects`);
  await page.getByRole('button', { name: 'e2e staging', exact: true }).click();
  const settings = page.getByRole('region', { name: 'Settings of e2e staging' });
  page.once('dialog', (d) => void d.accept('not the name'));
  await settings.getByRole('button', { name: 'Delete project' }).click();
  page.once('dialog', (d) => void d.accept('e2e staging'));
  await settings.getByRole('button', { name: 'Delete project' }).click();
  await waitFor(
    async () => (await page.getByRole('button', { name: 'e2e staging', exact: true }).count()) === 0,
  );
  const left = await call(warden.url, 'GET', '/v1/projects', {
    headers: { cookie: (await admin.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
  });
  expect((left.body.items as { id: string }[]).map((x) => x.id)).not.toContain(staging.id);
  expect((await call(warden.url, 'GET', '/v1/sessions?limit=1', { apiKey: secret })).status).toBe(401);
  page.off('request', onRequest);
  expect(deletes).toEqual([`${warden.url}/v1/projects/${staging.id}`]);
});

test('screenshots of the other main pages', async () => {
  await page.goto(`${warden.url}/agents`);
  await page.locator('.agent-card').first().waitFor();
  await shot(page, 'agents');
  await page.goto(`${warden.url}/events`);
  await page.locator('.event-list .tl-row').first().click();
  await shot(page, 'events');
  await page.goto(`${warden.url}/admin/keys`);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await shot(page, 'api-keys');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await shot(page, 'sign-in');
});
