import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { newId } from '@agent-warden/contracts';
import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { call, waitFor } from '../support/http';
import { unguardedDestructiveSession } from '../support/sessions';
import { signedInPage, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * The retention window in the dashboard's project settings (docs/operations.md#retention-and-deletion),
 * as a project admin uses it in headless Chromium against `npm start`'s process: they set 30 days,
 * run the job, see how many sessions it deleted, and the database holds the setting, its audit
 * record, and no more of the session whose events were 40 days old; clearing the field keeps
 * everything again. On a session's page they export it as NDJSON and delete it. Screenshots go to `.artifacts/screenshots/` (git-ignored).
 */

const ROOT = path.resolve(__dirname, '../..');
const SHOTS = path.join(ROOT, '.artifacts/screenshots');
const API_KEY = 'wk_e2e_retention_key_0123456789abcdef01';
const ADMIN = { email: 'admin@retention.test', password: 'correct horse battery staple' };
const DAY = 86_400_000;

let warden: DashboardStack;
let page: Page;
let prisma: PrismaClient;

jest.setTimeout(180_000);

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  warden = await startDashboardStack({ apiKey: API_KEY, admin: ADMIN });
  prisma = createPrisma(warden.db.url, { poolMax: 2 });
  page = await signedInPage(warden, ADMIN);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await warden?.stop();
});

/** Sends one ended session whose events are stamped from `t0` on; resolves once it is stored. */
async function sendSession(t0: number): Promise<string> {
  const id = await call(warden.url, 'POST', '/v1/agents/identify', {
    apiKey: API_KEY,
    body: { agent: { key: 'e2e-retention-agent' } },
  });
  const sessionId = newId();
  const events = unguardedDestructiveSession({ sessionId, runId: newId(), ...id.body }, t0);
  expect((await call(warden.url, 'POST', '/v1/events', { apiKey: API_KEY, body: { events } })).status).toBe(
    202,
  );
  await waitFor(async () => (await prisma.event.count({ where: { sessionId } })) === events.length);
  return sessionId;
}

test('a project admin sets the retention window, runs it, and the old session is gone', async () => {
  const old = await sendSession(Date.now() - 40 * DAY);
  const recent = await sendSession(Date.now() - 3_600_000);

  await page.goto(`${warden.url}/settings/projects`);
  const settings = page.getByRole('region', { name: /^Settings of / });
  await settings.getByRole('tab', { name: 'Retention' }).click();
  await settings.getByText('Not run yet.').waitFor();
  await settings.getByLabel('Retention in days').fill('30');
  await settings.getByRole('button', { name: 'Save retention' }).click();
  await waitFor(
    async () => (await prisma.project.findFirst({ select: { retentionDays: true } }))?.retentionDays === 30,
  );
  await settings.getByRole('button', { name: 'Run now' }).click();
  await settings.getByText(/succeeded, 1 session\(s\) deleted/).waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'project-retention.png') });

  expect(await prisma.session.count({ where: { id: old } })).toBe(0);
  expect(await prisma.event.count({ where: { sessionId: old } })).toBe(0);
  expect(await prisma.session.count({ where: { id: recent } })).toBe(1);
  const audit = await prisma.auditLog.findMany({
    where: { action: 'project.settings.updated' },
    select: { actor: true, before: true, after: true },
  });
  expect(audit).toEqual([
    { actor: `user:${ADMIN.email}`, before: { retentionDays: null }, after: { retentionDays: 30 } },
  ]);

  // An empty field keeps everything again.
  await settings.getByLabel('Retention in days').fill('');
  await settings.getByRole('button', { name: 'Save retention' }).click();
  await waitFor(
    async () => (await prisma.project.findFirst({ select: { retentionDays: true } }))?.retentionDays === null,
  );
});

test('a project admin exports a session as NDJSON and deletes it from its page', async () => {
  const sessionId = await sendSession(Date.now() - 60_000);
  const stored = await prisma.event.findMany({
    where: { sessionId },
    orderBy: [{ sequence: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  await page.goto(`${warden.url}/sessions/${sessionId}`);
  const link = page.getByRole('link', { name: 'Export NDJSON' });
  await link.waitFor();
  // The link works with the person's cookie: the session line, then its events in replay order.
  const res = await page.request.get(warden.url + (await link.getAttribute('href'))!);
  expect(res.headers()['content-type']).toMatch(/^application\/x-ndjson/);
  const lines = (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; session?: { id: string }; event?: { id: string } });
  expect(lines[0]).toMatchObject({ kind: 'session', session: { id: sessionId } });
  expect(lines.slice(1).map((l) => l.event!.id)).toEqual(stored.map((e) => e.id));

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete session' }).click();
  await page.waitForURL(/\/sessions$/);
  expect(await prisma.session.count({ where: { id: sessionId } })).toBe(0);
  expect(await prisma.event.count({ where: { sessionId } })).toBe(0);
  expect(
    await prisma.auditLog.count({
      where: { action: 'session.deleted', entityId: sessionId, actor: `user:${ADMIN.email}` },
    }),
  ).toBe(1);
  // The sessions list links the export of what it shows (its filters).
  await page.getByRole('heading', { name: 'Sessions', exact: true }).waitFor();
  expect(await page.getByRole('link', { name: 'Export NDJSON' }).getAttribute('href')).toBe(
    '/v1/sessions/export',
  );
});
