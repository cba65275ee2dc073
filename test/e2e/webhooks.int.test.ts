import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '../support/http';
import { signedInPage, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * Settings › Webhooks as an admin uses it (docs/operations.md#notifications), in headless Chromium
 * against `npm start`'s process (whose webhook worker sends): add a subscription and copy its
 * secret, send a test that a receiver verifies with it, see a failing receiver's attempts in the
 * delivery log, disable and delete it. Screenshots go to `.artifacts/screenshots/` (git-ignored).
 */

const ROOT = path.resolve(__dirname, '../..');
const SHOTS = path.join(ROOT, '.artifacts/screenshots');
const API_KEY = 'wk_e2e_webhooks_key_0123456789abcdef012';
const ADMIN = { email: 'admin@webhooks.test', password: 'correct horse battery staple' };

let warden: DashboardStack;
let page: Page;
let server: http.Server;
let receiverUrl: string;
const received: { headers: Record<string, string>; body: string }[] = [];
let answer = 204;

jest.setTimeout(180_000);

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
      );
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = answer;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  warden = await startDashboardStack({
    apiKey: API_KEY,
    admin: ADMIN,
    env: { WARDEN_WEBHOOK_POLL_MS: '100', WARDEN_WEBHOOK_BACKOFF_MS: '60000' },
  });
  page = await signedInPage(warden, ADMIN);
});

afterAll(async () => {
  await warden?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

test('an admin adds a webhook, tests it, reads its delivery log, disables and deletes it', async () => {
  await page.goto(`${warden.url}/settings/webhooks`);
  const form = page.getByRole('form', { name: 'Add webhook' });
  await form.getByLabel('URL').fill('ftp://nope');
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByText('must be an http(s) URL').first().waitFor();

  await form.getByLabel('URL').fill(receiverUrl);
  await form.getByLabel('Approval expired').uncheck();
  await form.getByRole('button', { name: 'Add webhook' }).click();
  const secret = ((await page.locator('.secret pre').textContent()) ?? '').trim();
  expect(secret).toMatch(/^whsec_/);
  const card = page.locator('article.webhook').filter({ hasText: receiverUrl });
  await card.waitFor();
  expect(await card.textContent()).not.toContain('approval.expired');

  // Test: the receiver gets a ping it verifies with the secret the page showed.
  await card.getByRole('button', { name: 'Send test' }).click();
  await waitFor(async () => received.length >= 1);
  const ping = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
  expect(ping.type).toBe('webhook.ping');
  const row = card.locator('tr[data-delivery-id]').first();
  await row.filter({ hasText: 'delivered' }).waitFor();
  expect(await row.textContent()).toContain('webhook.ping');

  // A receiver answering 500: the log shows the attempt, its error and a retry to come.
  answer = 500;
  await card.getByRole('button', { name: 'Send test' }).click();
  const failing = card.locator('tr[data-delivery-id]').filter({ hasText: 'HTTP 500' });
  await failing.waitFor();
  expect(await failing.textContent()).toContain('pending');
  await page.screenshot({ path: path.join(SHOTS, 'webhooks.png') });

  // Disable through Edit; the stored row says so.
  await card.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit webhook' });
  await edit.getByLabel('enabled').uncheck();
  await edit.getByRole('button', { name: 'Save' }).click();
  await card.getByText('disabled', { exact: true }).waitFor();
  const pg = new Client({ connectionString: warden.db.url });
  await pg.connect();
  try {
    const { rows } = await pg.query('SELECT enabled, secret FROM webhook_subscriptions');
    expect(rows).toEqual([{ enabled: false, secret }]);
    page.once('dialog', (d) => void d.accept());
    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks').waitFor();
    expect((await pg.query('SELECT count(*)::int AS n FROM webhook_subscriptions')).rows[0].n).toBe(0);
    expect((await pg.query('SELECT count(*)::int AS n FROM webhook_deliveries')).rows[0].n).toBe(0);
  } finally {
    await pg.end();
  }
});
