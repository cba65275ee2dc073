import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORY_FILES } from './support/env';
import { call } from './support/http';
import { startStandalone, type StandaloneProcess } from './support/standalone';

/** Standalone (`npm start`): embedded PGlite behind pglite-socket, in-process bus, one port, its own process. */
describe('standalone: the whole service in one process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-standalone-'));
  const env = { WARDEN_DATA_DIR: dataDir };
  let s: StandaloneProcess;
  let apiKey: string;
  let stored = 0;

  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('a first start creates a project, an API key and the first admin, handed over in a 0600 file and never logged', async () => {
    s = await startStandalone(env);
    expect(s.generatedApiKey).toMatch(/^aw_[A-Za-z0-9_-]{40,}$/);
    apiKey = s.generatedApiKey!;
    expect((await call(s.url, 'GET', '/ready')).status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/openapi.json')).body.openapi).toBe('3.1.0');
    // …and the dashboard's first admin, whose printed password signs in.
    expect(s.generatedAdmin?.email).toBe('admin@localhost');
    const login = await call(s.url, 'POST', '/v1/auth/login', {
      body: s.generatedAdmin,
      headers: { 'x-warden-csrf': '1' },
    });
    expect(login.status).toBe(200);
    expect(login.body.user.role).toBe('admin');
    const page = await fetch(s.url + '/');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // …but not through the logs: the secrets are in a 0600 file of the data dir, no log line holds them.
    const secretsFile = path.join(dataDir, 'first-start-secrets.env');
    expect(fs.statSync(secretsFile).mode & 0o777).toBe(0o600);
    const output = s.output();
    expect(output).toContain(secretsFile);
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain(s.generatedAdmin!.password);
  }, 120_000);

  test('the embedded database listens only on a unix socket in a 0700 directory, not on TCP', () => {
    const started = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; socketDir?: string; port?: number; host?: string })
      .find((l) => l.msg === 'embedded postgres started');
    expect(started?.socketDir).toBeDefined();
    expect(started).not.toHaveProperty('port');
    expect(started).not.toHaveProperty('host');
    const dir = fs.statSync(started!.socketDir!);
    expect(dir.mode & 0o777).toBe(0o700);
    expect(dir.uid).toBe(process.getuid!());
    expect(fs.statSync(path.join(started!.socketDir!, '.s.PGSQL.5432')).isSocket()).toBe(true);
  });

  test('all 762 shared trajectories are stored exactly once', async () => {
    const summary = await replayFiles({ files: TRAJECTORY_FILES, baseUrl: s.url, apiKey, concurrency: 8 });
    expect(summary.trajectories).toBe(762);
    expect(summary.missing).toBe(0);
    expect(summary.duplicates).toBe(0);
    expect(summary.events_stored).toBe(summary.events_sent);
    expect(summary.client.dropped + summary.client.failed + summary.client.rejected).toBe(0);
    expect(summary.decisions).toEqual({ allow: 3571 });
    const tools = await call(
      s.url,
      'GET',
      `/v1/stats/events?agentVersionId=${summary.agentVersionIds.join(',')}`,
      { apiKey },
    );
    expect(tools.body.byType['agent.tool.started']).toBe(3571);
    expect(tools.body.sessions).toBe(762);
    stored = summary.events_stored ?? -1;
  }, 900_000);

  test('after a restart the data is still there and no new key is generated', async () => {
    expect(await s.stop()).toBe(0);
    s = await startStandalone(env);
    expect(s.generatedApiKey).toBeUndefined();
    const stats = await call(s.url, 'GET', '/v1/stats/events', { apiKey });
    expect(stats.status).toBe(200);
    expect(stats.body.events).toBe(stored);
    expect(stats.body.sessions).toBe(762);
  }, 120_000);

  test('WARDEN_INIT_API_KEY is honoured', async () => {
    await s.stop();
    const initKey = 'aw_init_key_for_the_standalone_test_0001';
    s = await startStandalone({ ...env, WARDEN_INIT_API_KEY: initKey });
    const agents = await call(s.url, 'GET', '/v1/agents', { apiKey: initKey });
    expect(agents.status).toBe(200);
    expect(agents.body.items.length).toBeGreaterThan(0);
  }, 120_000);
});
