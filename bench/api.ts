/**
 * `npm run bench:api` — latency of the dashboard's read API (issue 6: the sessions list within
 * 200 ms at 100k sessions). Seeds a fresh PostgreSQL database with SQL (bench/api/seed.ts),
 * starts the api in this process, and measures p50/p95/p99 of each request shape
 * (bench/api/scenarios.ts) one request at a time, as one person's dashboard does.
 * Needs PostgreSQL (`source .infra/env` first). Writes its section of docs/benchmarks.md.
 *
 *   source .infra/env && npm run bench:api [-- --sessions 100000] [-- --runs 40] [-- --no-write]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { createApiApp } from '@agent-warden/api';
import { createApiKey, createPrisma, createProject } from '@agent-warden/db';
import { generateApiKey, hashApiKey, listen } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { createTestDatabase } from '../test/support/database';
import { renderApiSection, type ScenarioResult } from './api/report';
import { apiScenarios } from './api/scenarios';
import { seedApiData } from './api/seed';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, machineInfo, ROOT } from './lib/env';
import { percentile } from './lib/stats';

const COMMAND = 'source .infra/env && npm run bench:api';
const WARMUP = 3;

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string', default: '100000' },
      runs: { type: 'string', default: '40' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const sessions = Number(values.sessions);
  const runs = Number(values.runs);
  if (!process.env.DATABASE_URL) throw new Error(`DATABASE_URL not set.\n  ${COMMAND}`);
  const machine = await machineInfo({ databaseUrl: process.env.DATABASE_URL, kafkaBrokers: [] });
  const tdb = await createTestDatabase();
  const db = createPrisma(tdb.url);
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  try {
    const project = await createProject(db, 'bench-api');
    const key = generateApiKey();
    await createApiKey(db, project.id, {
      name: 'bench',
      prefix: key.prefix,
      hash: hashApiKey(key.secret),
      scopes: ['read'],
    });
    log(`seeding ${sessions} sessions into ${tdb.name}`);
    const seeded = await seedApiData(tdb.url, project.id, {
      sessions,
      agents: 20,
      versionsPerAgent: 3,
      evaluatedShare: 0.4,
      approvals: 2000,
      pendingApprovals: 200,
      days: 30,
    });
    log(`seeded ${JSON.stringify(seeded.counts)} in ${(seeded.ms / 1000).toFixed(1)} s`);
    const deepCursor = await cursorAt(tdb.url, project.id, Math.floor(sessions / 2));

    const deps = {
      db,
      logger: createLogger({ name: 'bench-api', level: 'warn' }),
      dashboardDir: path.join(os.tmpdir(), 'no-dashboard'),
      sessionSecret: 'bench-api-session-secret-0123456789abcdef',
    };
    server = await listen(
      createApiApp(deps, () => true),
      0,
      '127.0.0.1',
    );
    const loadBefore = loadAverage();
    const results: ScenarioResult[] = [];
    for (const s of apiScenarios(seeded, deepCursor)) {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < WARMUP + runs; i++) {
        const t0 = performance.now();
        const res = await fetch(server.url + s.path, { headers: { authorization: `Bearer ${key.secret}` } });
        const body = (await res.json()) as { items?: unknown[]; versions?: unknown[] };
        const ms = performance.now() - t0;
        if (res.status !== 200) throw new Error(`${s.name}: HTTP ${res.status} ${JSON.stringify(body)}`);
        if (i >= WARMUP) times.push(ms);
        rows = (body.items ?? body.versions ?? []).length;
      }
      const r: ScenarioResult = {
        ...s,
        rows,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        max: Math.max(...times),
        load1: loadAverage()[0],
      };
      results.push(r);
      log(`${s.group} / ${s.name}: p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms (${rows} rows)`);
    }
    const section = renderApiSection({
      machine,
      command: COMMAND,
      date: new Date(),
      seeded,
      runs,
      loadBefore,
      loadAfter: loadAverage(),
      results,
    });
    process.stdout.write(`${section}\n`);
    if (!values['no-write']) {
      writeDocSection(path.join(ROOT, 'docs/benchmarks.md'), 'api', section);
      log('wrote docs/benchmarks.md (section bench:api)');
    }
  } finally {
    await server?.close();
    await db.$disconnect();
    await tdb.drop();
  }
}

/** The keyset cursor of the `offset`-th session, newest first (the api's cursor: base64url of `<ISO time>|<id>`). */
async function cursorAt(url: string, projectId: string, offset: number): Promise<string> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ started_at: Date; id: string }>(
      `SELECT started_at, id FROM sessions WHERE project_id = $1 ORDER BY started_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [projectId, offset],
    );
    const row = rows[0];
    if (!row) throw new Error('no session at that offset');
    return Buffer.from(`${row.started_at.toISOString()}|${row.id}`, 'utf8').toString('base64url');
  } finally {
    await pg.end();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
