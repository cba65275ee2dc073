import type { Page } from 'playwright-core';
import { WardenClient } from '@agent-warden/client';
import { sendLargeSession, type LargeSession } from '../../bench/dashboard/large-session';
import { call, waitFor } from '../support/http';
import { signIn, startDashboardStack, type DashboardStack } from './support/dashboard';

/**
 * A session of 10,000 events in the dashboard (issue 6: "opens and scrolls smoothly (virtualised
 * list)"): one session sent through the TypeScript client to `npm start`'s process, opened in
 * headless Chromium. The page shows the first events from the first small page while the rest load
 * behind it; End reaches the last event; and however far it scrolls, only a screenful of rows is
 * in the DOM. How fast it is goes in `npm run bench:dashboard`, not here.
 */

const API_KEY = 'wk_e2e_large_session_key_0123456789abcdef';
const ADMIN = { email: 'admin@large.test', password: 'correct horse battery staple' };
const EVENTS = 10_000;
/** A screenful (900 px / 34 px rows) plus overscan, with room: far below 10,000. */
const MAX_ROWS = 200;

let warden: DashboardStack;
let page: Page;
let session: LargeSession;

jest.setTimeout(180_000);

beforeAll(async () => {
  warden = await startDashboardStack({ apiKey: API_KEY, admin: ADMIN });
  session = await sendLargeSession({ baseUrl: warden.url, apiKey: API_KEY, events: EVENTS });
  const context = await warden.browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  await signIn(page, warden.url, ADMIN);
});

afterAll(async () => {
  await warden?.stop();
});

const rows = () => page.locator('.timeline .tl-row');
const position = () => page.getByTestId('position');
/** The sequence numbers of the rows in the DOM. */
const renderedSequences = async () =>
  (await page.locator('.timeline .tl-row .seq').allTextContents()).map(Number);

test('the API pages a large session: the detail brings the first events and a cursor for the rest', async () => {
  expect(session.sent).toBe(EVENTS);
  const first = await call(warden.url, 'GET', `/v1/sessions/${session.sessionId}?eventsLimit=200`, {
    apiKey: API_KEY,
  });
  expect(first.status).toBe(200);
  expect(first.body.eventCount).toBe(EVENTS);
  expect(first.body.events).toHaveLength(200);
  expect(first.body.events[0].sequence).toBe(1);
  let cursor: string | null = first.body.eventsNextCursor;
  const sequences: number[] = first.body.events.map((e: { sequence: number }) => e.sequence);
  while (cursor) {
    const next = await call(
      warden.url,
      'GET',
      `/v1/sessions/${session.sessionId}/events?limit=2000&cursor=${cursor}`,
      { apiKey: API_KEY },
    );
    expect(next.status).toBe(200);
    sequences.push(...next.body.items.map((e: { sequence: number }) => e.sequence));
    cursor = next.body.nextCursor;
  }
  // Every event once, in replay order.
  expect(sequences).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
  const bad = await call(warden.url, 'GET', `/v1/sessions/${session.sessionId}/events?cursor=nonsense`, {
    apiKey: API_KEY,
  });
  expect(bad.status).toBe(400);
});

test('a session of 10,000 events opens on its first events with a small DOM', async () => {
  await page.goto(`${warden.url}/sessions/${session.sessionId}`);
  await position().waitFor();
  expect(await page.locator('.session-title').textContent()).toBe(session.inputSummary);
  expect((await position().textContent())?.startsWith('1 / ')).toBe(true);
  expect(await page.getByTestId('event-detail').locator('h3').textContent()).toBe('Session started');
  const seqs = await renderedSequences();
  expect(seqs.slice(0, 3)).toEqual([1, 2, 3]);
  expect(seqs.length).toBeLessThan(MAX_ROWS);
  // The rest arrive behind the first screen; then the player knows every event.
  await page.getByTestId('events-loading').waitFor({ state: 'detached', timeout: 60_000 });
  expect(await position().textContent()).toBe(`1 / ${EVENTS}`);
  expect(await page.getByRole('slider', { name: 'Scrub' }).getAttribute('max')).toBe(String(EVENTS - 1));
  expect(await rows().count()).toBeLessThan(MAX_ROWS);
});

test('scrolling the timeline to the middle and to the end keeps only a screenful of rows', async () => {
  const timeline = page.locator('.timeline');
  await timeline.evaluate((el) => {
    el.scrollTop = el.scrollHeight / 2;
  });
  await page.waitForFunction(
    "[...document.querySelectorAll('.timeline .tl-row .seq')].some((s) => Number(s.textContent) > 4000)",
  );
  const middle = await renderedSequences();
  expect(Math.min(...middle)).toBeGreaterThan(4000);
  expect(Math.max(...middle)).toBeLessThan(6000);
  expect(middle.length).toBeLessThan(MAX_ROWS);

  await timeline.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await page.locator('.timeline .tl-row .seq', { hasText: new RegExp(`^${EVENTS}$`) }).waitFor();
  expect((await renderedSequences()).length).toBeLessThan(MAX_ROWS);
  // Scrolling does not move the player.
  expect(await position().textContent()).toBe(`1 / ${EVENTS}`);
});

test('End selects the last event (even while pages load), steps back, and Home returns to the first', async () => {
  // A fresh open: End right away follows the end until every page is in.
  await page.goto(`${warden.url}/sessions/${session.sessionId}`);
  await position().waitFor();
  await page.locator('.timeline').focus();
  await page.keyboard.press('End');
  await page.locator('.tl-row.selected .seq', { hasText: String(EVENTS) }).waitFor();
  expect(await position().textContent()).toBe(`${EVENTS} / ${EVENTS}`);
  expect(await page.getByTestId('event-detail').locator('h3').textContent()).toBe('Session completed');
  await page.getByRole('button', { name: 'Step back' }).click();
  expect(await position().textContent()).toBe(`${EVENTS - 1} / ${EVENTS}`);
  expect(await page.locator('.tl-row.selected .seq').textContent()).toBe(String(EVENTS - 1));
  expect(await rows().count()).toBeLessThan(MAX_ROWS);

  await page.keyboard.press('Home');
  await page.locator('.tl-row.selected .seq', { hasText: /^1$/ }).waitFor();
  expect(await position().textContent()).toBe(`1 / ${EVENTS}`);
  expect(await rows().count()).toBeLessThan(MAX_ROWS);
});

test('an active session keeps growing on the open page: new events arrive after the loaded pages', async () => {
  const agent = new WardenClient({
    baseUrl: warden.url,
    apiKey: API_KEY,
    agent: { key: 'e2e-live-agent', name: 'Live agent' },
    flushIntervalMs: 100,
  });
  try {
    await agent.ready();
    const sessionId = agent.startSession({ inputSummary: 'a session still running' });
    // More than the first page (200), so the page has fetched a second one before new events come.
    for (let i = 0; i < 249; i++)
      agent.trackMessage({ role: 'assistant', content: `thinking, step ${i + 1}` });
    await agent.flush();
    await waitFor(async () => {
      const r = await call(warden.url, 'GET', `/v1/sessions/${sessionId}?eventsLimit=0`, { apiKey: API_KEY });
      return r.body?.eventCount === 250;
    });
    await page.goto(`${warden.url}/sessions/${sessionId}`);
    await position().filter({ hasText: '/ 250' }).waitFor();

    for (let i = 0; i < 30; i++) agent.trackMessage({ role: 'assistant', content: `later, step ${i + 1}` });
    await agent.flush();
    // The page polls an active session and reads on from its last page: no reload.
    await position().filter({ hasText: '/ 280' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('End');
    await page.locator('.tl-row.selected .seq', { hasText: /^280$/ }).waitFor();
    expect(await page.getByTestId('event-detail').textContent()).toContain('later, step 30');
    // Every event once: no page was appended twice.
    expect(await position().textContent()).toBe('280 / 280');
  } finally {
    await agent.shutdown();
  }
});
