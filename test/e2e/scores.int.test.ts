import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { WardenClient } from '@agent-warden/client';
import { call, waitFor } from '../support/http';
import { signedInPage, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * Scores in the dashboard (issue 15 item 2; docs/architecture.md#scores), as a person uses them in
 * headless Chromium against `npm start`'s process: a session the agent scored shows its score; the
 * person sets one by hand (name, value, comment), sees it on the session, and it is stored once
 * with them as author (read back from PostgreSQL). Screenshots go to `.artifacts/screenshots/`
 * (git-ignored).
 */

const ROOT = path.resolve(__dirname, '../..');
const SHOTS = path.join(ROOT, '.artifacts/screenshots');
const API_KEY = 'wk_e2e_scores_key_0123456789abcdef0123';
const ADMIN = { email: 'admin@scores.test', password: 'correct horse battery staple' };

let warden: DashboardStack;
let page: Page;
let client: WardenClient;

jest.setTimeout(180_000);

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  warden = await startDashboardStack({ apiKey: API_KEY, admin: ADMIN });
  client = new WardenClient({
    baseUrl: warden.url,
    apiKey: API_KEY,
    agent: { key: 'e2e-booking-agent', name: 'Booking agent' },
  });
  await client.ready();
  page = await signedInPage(warden, ADMIN);
});

afterAll(async () => {
  await client?.shutdown().catch(() => undefined);
  await warden?.stop();
});

test('a score set by hand on a session appears on it and is stored once, beside the agent’s own', async () => {
  const sessionId = client.sessionId;
  await client.withRun({ name: 'book', inputSummary: 'Book a flight to Lisbon for Friday' }, async (run) => {
    run.trackMessage({ role: 'user', content: 'Book a flight to Lisbon for Friday' });
    run.score({ name: 'task_succeeded', value: false, comment: 'booked the wrong day' });
  });
  client.endSession({ status: 'completed' });
  const flushed = await client.flush();
  expect(flushed.failed + flushed.rejected).toBe(0);

  await page.goto(`${warden.url}/sessions/${sessionId}`);
  const panel = page.getByTestId('scores');
  await panel.getByText('task_succeeded', { exact: true }).waitFor();
  const agentScore = panel.getByTestId('score').first();
  expect(await agentScore.textContent()).toContain('no');
  expect(await agentScore.textContent()).toContain('rule');

  const form = panel.getByRole('form', { name: 'Set a score' });
  await form.getByLabel('Name').fill('helpfulness');
  await form.getByLabel('Type').selectOption('numeric');
  await form.getByLabel('Value').fill('0.25');
  await form.getByLabel('Comment').fill('the date was in the first message');
  await form.getByRole('button', { name: 'Set score' }).click();

  const mine = panel.getByTestId('score').filter({ hasText: 'helpfulness' });
  await mine.waitFor();
  const text = (await mine.textContent()) ?? '';
  for (const part of ['0.25', 'human', 'the date was in the first message', `user:${ADMIN.email}`])
    expect(text).toContain(part);
  await page.screenshot({ path: path.join(SHOTS, 'session-scores.png') });

  // The form is cleared, and a reload (a fresh read of the session) still shows it.
  expect(await form.getByLabel('Name').inputValue()).toBe('');
  await page.reload();
  await panel.getByText('helpfulness', { exact: true }).waitFor();

  // Stored once, as the person set it.
  const rows = await waitFor(async () => {
    const r = await call(warden.url, 'GET', `/v1/sessions/${sessionId}/scores`, { apiKey: API_KEY });
    return r.status === 200 && r.body.items.length === 2 ? r.body.items : undefined;
  });
  expect(
    rows.map((s: { name: string; value: unknown; source: string }) => [s.name, s.value, s.source]),
  ).toEqual([
    ['task_succeeded', false, 'rule'],
    ['helpfulness', 0.25, 'human'],
  ]);
  const pg = new Client({ connectionString: warden.db.url });
  await pg.connect();
  try {
    const stored = await pg.query(
      `SELECT name, numeric_value, source, author, comment FROM scores WHERE session_id = $1 AND name = 'helpfulness'`,
      [sessionId],
    );
    expect(stored.rows).toEqual([
      {
        name: 'helpfulness',
        numeric_value: 0.25,
        source: 'human',
        author: `user:${ADMIN.email}`,
        comment: 'the date was in the first message',
      },
    ]);
  } finally {
    await pg.end();
  }
});

test('a value that is not a number is refused in the form, naming the field, and nothing is stored', async () => {
  const sessionId = client.sessionId;
  await client.withRun({ name: 'again' }, async () => undefined);
  await client.flush();
  await page.goto(`${warden.url}/sessions/${sessionId}`);
  const form = page.getByTestId('scores').getByRole('form', { name: 'Set a score' });
  await form.getByLabel('Name').fill('cost');
  await form.getByLabel('Value').fill('cheap');
  await form.getByRole('button', { name: 'Set score' }).click();
  await form.getByRole('alert').getByText('value: a number is needed').waitFor();
  const r = await call(warden.url, 'GET', `/v1/sessions/${sessionId}/scores`, { apiKey: API_KEY });
  expect(r.body.items).toEqual([]);
});
