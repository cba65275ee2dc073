import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startStandalone, type StandaloneProcess } from '../../support/standalone';

const ROOT = path.resolve(__dirname, '../../..');
/** Debian's headless Chromium (`CHROMIUM_PATH` to use another). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A person who signs in to the dashboard. */
export interface Person {
  email: string;
  password: string;
}

/** `npm start`'s process on a fresh database, with the dashboard build, and a headless browser. */
export interface DashboardStack {
  /** Base URL of the standalone process (API and dashboard). */
  url: string;
  db: TestDatabase;
  warden: StandaloneProcess;
  browser: Browser;
  /** Closes the browser, stops the process (SIGTERM) and drops the database. */
  stop(): Promise<void>;
}

/**
 * Builds the dashboard when its build is missing or stale, starts the standalone process on a
 * fresh PostgreSQL database (a clone of the template) with `apiKey` (all scopes) and `admin` as the
 * first admin, plus `env`, and launches headless Chromium. Cleans up what it started when a step fails.
 */
export async function startDashboardStack(o: {
  apiKey: string;
  admin: Person;
  env?: Record<string, string>;
}): Promise<DashboardStack> {
  execFileSync(process.execPath, [path.join(ROOT, 'services/dashboard/scripts/ensure-built.mjs')], {
    stdio: 'inherit',
  });
  const db = await createTestDatabase();
  let warden: StandaloneProcess | undefined;
  try {
    warden = await startStandalone({
      DATABASE_URL: db.url,
      WARDEN_INIT_API_KEY: o.apiKey,
      WARDEN_INIT_ADMIN_EMAIL: o.admin.email,
      WARDEN_INIT_ADMIN_PASSWORD: o.admin.password,
      ...o.env,
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox'],
    });
    const started = warden;
    return {
      url: started.url,
      db,
      warden: started,
      browser,
      stop: async () => {
        await browser.close();
        await started.stop();
        await db.drop();
      },
    };
  } catch (err) {
    await warden?.stop();
    await db.drop();
    throw err;
  }
}

/** Signs `who` in on the sign-in page of `baseUrl` and waits for the sessions list. */
export async function signIn(page: Page, baseUrl: string, who: Person): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sessions', exact: true }).waitFor();
}

/**
 * A new browser page (1440×900, dark scheme, as the screenshots in docs/img are taken) with `who`
 * signed in on `stack`.
 */
export async function signedInPage(stack: DashboardStack, who: Person): Promise<Page> {
  const context = await stack.browser.newContext({
    viewport: { width: 1440, height: 900 },
    colorScheme: 'dark',
  });
  const page = await context.newPage();
  await signIn(page, stack.url, who);
  return page;
}
