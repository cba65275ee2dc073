import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { newId } from '@agent-warden/contracts';
import { silentLogger, WardenClient } from '@agent-warden/client';
import { call, waitFor } from '../support/http';
import { signedInPage, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * The version comparison in the dashboard (issue 15 item 3; docs/architecture.md#comparing-versions),
 * in headless Chromium against `npm start`'s process: two versions of one agent send scored sessions
 * through the TypeScript client; on the agent's page a person picks both versions and a window and
 * sees the sessions, the success rates with their intervals, the difference, and links to example
 * sessions that open the session. Screenshots go to `.artifacts/screenshots/` (git-ignored).
 */

const ROOT = path.resolve(__dirname, '../..');
const SHOTS = path.join(ROOT, '.artifacts/screenshots');
const API_KEY = 'wk_e2e_compare_key_0123456789abcdef0123';
const ADMIN = { email: 'admin@compare.test', password: 'correct horse battery staple' };
const OUTCOMES = { '1.0.0': [true, true, true, false], '2.0.0': [true, false, false, false] };

let warden: DashboardStack;
let page: Page;
let agentId = '';
const failedOfB: string[] = [];

jest.setTimeout(180_000);

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  warden = await startDashboardStack({ apiKey: API_KEY, admin: ADMIN });
  for (const [version, outcomes] of Object.entries(OUTCOMES))
    for (const ok of outcomes) {
      const sessionId = newId();
      const client = new WardenClient({
        baseUrl: warden.url,
        apiKey: API_KEY,
        agent: { key: 'e2e-compare-agent', name: 'Compared agent' },
        version: { version },
        sessionId,
        logger: silentLogger,
      });
      await client.withTool({ name: 'lookup', arguments: { q: 'seat' }, guard: false }, () => 'found');
      client.score({ name: 'task_succeeded', value: ok });
      client.endSession({ status: 'completed' });
      const flushed = await client.shutdown();
      expect(flushed.failed + flushed.rejected + flushed.dropped).toBe(0);
      agentId = client.agentId ?? agentId;
      if (version === '2.0.0' && !ok) failedOfB.push(sessionId);
    }
  // All 8 scores stored before the page reads them.
  await waitFor(async () => {
    const r = await call(warden.url, 'GET', `/v1/agents/${agentId}`, { apiKey: API_KEY });
    if (r.status !== 200 || r.body.versions.length !== 2) return false;
    const ids = r.body.versions.map((v: { id: string }) => v.id).join(',');
    const c = await call(warden.url, 'GET', `/v1/agents/${agentId}/compare?versions=${ids}`, {
      apiKey: API_KEY,
    });
    return c.body.versions?.every((v: { scores: Array<{ n: number }> }) => v.scores[0]?.n === 4);
  }, 60_000);
  page = await signedInPage(warden, ADMIN);
});

afterAll(async () => {
  await warden?.stop();
});

test('two versions picked on the agent page show side by side with the difference and example sessions', async () => {
  await page.goto(`${warden.url}/agents/${agentId}`);
  const panel = page.getByRole('region', { name: 'Compare versions' });
  await panel.getByLabel('compare version 1.0.0').check();
  await panel.getByLabel('compare version 2.0.0').check();
  await panel.getByLabel('comparison window').selectOption('7');
  await panel.getByRole('button', { name: 'Compare' }).click();

  const figures = panel.getByRole('table', { name: 'version figures' });
  await figures.waitFor();
  const header = (await figures.locator('thead').textContent()) ?? '';
  expect(header).toMatch(/1\.0\.0 \(baseline\).*2\.0\.0/);
  const rowText = async (title: string) =>
    (await figures
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: title, exact: true }) })
      .textContent()) ?? '';
  expect(await rowText('Sessions')).toBe('Sessions44');
  const success = await rowText('task_succeeded (success)');
  expect(success).toMatch(/3\/4 · 75\.0 %.*1\/4 · 25\.0 %/);

  const diff = panel.getByRole('table', { name: 'differences of 2.0.0' });
  const row = diff.getByRole('row').filter({ hasText: 'task_succeeded' });
  expect(await row.textContent()).toContain('−50.0 pp');
  await page.screenshot({ path: path.join(SHOTS, 'version-compare.png'), fullPage: true });

  // The examples are B's failed sessions, and one opens its session page.
  const links = row.getByRole('link');
  expect(await links.count()).toBe(3);
  const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  expect(hrefs.sort()).toEqual(failedOfB.map((id) => `/sessions/${id}`).sort());
  await links.first().click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/);
  expect(failedOfB.map((id) => `/sessions/${id}`)).toContain(new URL(page.url()).pathname);
});
