/**
 * `npm run bench:dashboard` — the replay page with a session of 10,000 events (issue 6: "opens
 * and scrolls smoothly (virtualised list)"). Sends one session through the TypeScript client to
 * `npm start`'s process (bench/dashboard/large-session.ts), then in headless Chromium measures the
 * time from navigation to the first rows (and to every event loaded), the session API's answers,
 * and the frame intervals of a scroll from top to bottom (bench/dashboard/browser.ts).
 * Needs PostgreSQL (`source .infra/env` first) and /usr/bin/chromium. Writes its section of
 * docs/benchmarks.md.
 *
 *   source .infra/env && npm run bench:dashboard [-- --events 10000] [-- --runs 10] [-- --no-write]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { createTestDatabase } from '../test/support/database';
import { startStandalone, type StandaloneProcess } from '../test/support/standalone';
import { scrollThrough, timeOpen, type OpenTiming, type ScrollRun } from './dashboard/browser';
import { sendLargeSession } from './dashboard/large-session';
import { renderDashboardSection, type ApiRow, type Spread } from './dashboard/report';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, machineInfo, ROOT } from './lib/env';
import { percentile } from './lib/stats';

const COMMAND = 'source .infra/env && npm run bench:dashboard';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const API_KEY = 'wk_bench_dashboard_key_0123456789abcdef';
const ADMIN = { email: 'admin@bench.test', password: 'bench dashboard password' };
const SCROLL_PX_PER_FRAME = 600;
const SCROLL_RUNS = 3;

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

const spreadOf = (xs: number[]): Spread => ({
  p50: percentile(xs, 50),
  p95: percentile(xs, 95),
  max: Math.max(...xs),
});

/** Times `runs` requests of `path` (after one unmeasured), with the body size of the last. */
async function timeRequest(baseUrl: string, name: string, path: string, runs: number): Promise<ApiRow> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const res = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${API_KEY}` } });
    const text = await res.text();
    JSON.parse(text);
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    if (i > 0) times.push(performance.now() - t0);
    bytes = Buffer.byteLength(text);
  }
  return { name, bytes, time: spreadOf(times) };
}

/** Every page of the session's events one after another, as the page loads them. */
async function timePaged(baseUrl: string, sessionId: string, runs: number): Promise<ApiRow> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    bytes = 0;
    let cursor: string | null = null;
    let first = true;
    do {
      const url: string = first
        ? `${baseUrl}/v1/sessions/${sessionId}?eventsLimit=200`
        : `${baseUrl}/v1/sessions/${sessionId}/events?limit=2000&cursor=${cursor}`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
      const text = await res.text();
      bytes += Buffer.byteLength(text);
      const body = JSON.parse(text) as { eventsNextCursor?: string | null; nextCursor?: string | null };
      cursor = (first ? body.eventsNextCursor : body.nextCursor) ?? null;
      first = false;
    } while (cursor);
    if (i > 0) times.push(performance.now() - t0);
  }
  return { name: 'every page in turn (200, then 2,000 at a time)', bytes, time: spreadOf(times) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '10' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const events = Number(values.events);
  const runs = Number(values.runs);
  if (!process.env.DATABASE_URL) throw new Error(`DATABASE_URL not set.\n  ${COMMAND}`);
  const machine = await machineInfo({ databaseUrl: process.env.DATABASE_URL, kafkaBrokers: [] });
  execFileSync(process.execPath, [path.join(ROOT, 'services/dashboard/scripts/ensure-built.mjs')], {
    stdio: 'inherit',
  });
  const tdb = await createTestDatabase();
  let warden: StandaloneProcess | undefined;
  let browser: Browser | undefined;
  try {
    warden = await startStandalone({
      DATABASE_URL: tdb.url,
      WARDEN_INIT_API_KEY: API_KEY,
      WARDEN_INIT_ADMIN_EMAIL: ADMIN.email,
      WARDEN_INIT_ADMIN_PASSWORD: ADMIN.password,
    });
    log(`sending one session of ${events} events to ${warden.url}`);
    const t0 = performance.now();
    const session = await sendLargeSession({ baseUrl: warden.url, apiKey: API_KEY, events });
    const seedSeconds = (performance.now() - t0) / 1000;
    log(`stored ${session.sent} events in ${seedSeconds.toFixed(1)} s`);

    const loadBefore = loadAverage();
    const base = `/v1/sessions/${session.sessionId}`;
    const api = [
      await timeRequest(warden.url, 'the whole session at once (no `eventsLimit`)', base, runs),
      await timeRequest(warden.url, 'the session with its first 200 events', `${base}?eventsLimit=200`, runs),
      await timePaged(warden.url, session.sessionId, runs),
    ];
    for (const a of api) log(`${a.name}: ${a.bytes} bytes, p50 ${a.time.p50.toFixed(0)} ms`);

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const signedIn = await context.request.post(`${warden.url}/v1/auth/login`, {
      data: ADMIN,
      headers: { 'x-warden-csrf': '1' },
    });
    if (!signedIn.ok()) throw new Error(`sign-in answered ${signedIn.status()}: ${await signedIn.text()}`);

    const opens: OpenTiming[] = [];
    const pageUrl = `${warden.url}/sessions/${session.sessionId}`;
    for (let i = 0; i < runs; i++) opens.push(await timeOpen(context, pageUrl, session.sent));
    log(`first rows p50 ${spreadOf(opens.map((o) => o.rows)).p50.toFixed(0)} ms`);

    const page = await context.newPage();
    await page.goto(pageUrl);
    // Every event loaded: the player counts them all.
    await page
      .getByTestId('position')
      .filter({ hasText: ` / ${session.sent}` })
      .waitFor({ timeout: 60_000 });
    const scrolls: ScrollRun[] = [];
    for (let i = 0; i < SCROLL_RUNS; i++) scrolls.push(await scrollThrough(page, SCROLL_PX_PER_FRAME));
    const frames = scrolls.flatMap((s) => s.frames);
    log(`scroll: ${frames.length} frames, p95 ${percentile(frames, 95).toFixed(1)} ms`);

    const section = renderDashboardSection({
      machine,
      chromium: browser.version(),
      command: COMMAND,
      date: new Date(),
      events: session.sent,
      runs,
      seedSeconds,
      api,
      open: {
        rows: spreadOf(opens.map((o) => o.rows)),
        painted: spreadOf(opens.map((o) => o.painted)),
        all: spreadOf(opens.map((o) => o.all)),
        detailStart: spreadOf(opens.map((o) => o.detailStart)),
        detail: spreadOf(opens.map((o) => o.detail)),
      },
      scroll: {
        runs: SCROLL_RUNS,
        pxPerFrame: SCROLL_PX_PER_FRAME,
        distance: scrolls[0]!.distance,
        frames: frames.length,
        frame: spreadOf(frames),
        slowFrames: frames.filter((f) => f > 50).length,
        longTasks: scrolls.reduce((a, s) => a + s.longTasks, 0),
        longTaskMs: scrolls.reduce((a, s) => a + s.longTaskMs, 0),
        maxRows: Math.max(...scrolls.map((s) => s.maxRows)),
      },
      loadBefore,
      loadAfter: loadAverage(),
    });
    process.stdout.write(`${section}\n`);
    if (!values['no-write']) {
      writeDocSection(path.join(ROOT, 'docs/benchmarks.md'), 'dashboard', section);
      log('wrote docs/benchmarks.md (section bench:dashboard)');
    }
  } finally {
    await browser?.close();
    await warden?.stop();
    await tdb.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
