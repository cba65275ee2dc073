/**
 * `npm run bench:scale` — how the service grows (issue 17): loads N events (default 10,000,000)
 * made from the shared trajectories (bench/scale/generate.ts) into a fresh database through the
 * projector's own batch write (`writeBatch` of @agent-warden/db), and at 10 %, 20 %, 50 % and 100 %
 * of N measures the ingest rate of the last segment, the read API over HTTP (api started in this
 * process: sessions list with each filter, the 10,000-event session's page, the events explorer,
 * a backtest over up to 1,000,000 calls), the retention job (`runRetention`) and the tables' size on
 * disk. Writes its section of docs/benchmarks.md.
 *
 *   source .infra/env && nice npm run bench:scale -- --events 200000 [--no-write] [--keep]
 *
 * Takes `DATABASE_URL` (a server; the bench creates its own database and drops it unless `--keep`).
 * For the full run use a PostgreSQL of its own (docs/benchmarks.md "Scale: how to run it").
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiApp } from '@agent-warden/api';
import {
  createApiKey,
  createPrisma,
  createProject,
  identifyAgent,
  runRetention,
  setRetentionDays,
  writeBatch,
  type PrismaClient,
} from '@agent-warden/db';
import { generateApiKey, hashApiKey, listen } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { createTestDatabase } from '../test/support/database';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, machineInfo, packageVersion, ROOT } from './lib/env';
import { agentsOf, loadTrajectories } from './lib/workload';
import { ScaleGenerator, type ScaleProject } from './scale/generate';
import { measure, scaleScenarios, sessionEventsCursor, type Measured } from './scale/measure';
import { renderScaleSection, type Checkpoint, type RetentionFigure } from './scale/report';
import { tableSizes } from './scale/sizes';

/** How the figures were made: `DATABASE_URL` names the server (its own for the full run, docs/benchmarks.md "Scale: how to run it"). */
const COMMAND = 'DATABASE_URL=… nice npm run bench:scale';
/** Events per `writeBatch` (the projector's batches at full speed hold ~4,000: docs/benchmarks.md "Ingest"). */
const BATCH = 4_000;
/** Batches written at once (the projector consumes partitions concurrently). */
const WRITERS = 2;
const DAYS = 90;
/** Retention window of the retention project: the oldest 10 of the 90 days go. */
const RETENTION_DAYS = 80;
const BIG_SESSION_EVENTS = 10_000;
const HTTP = { warmup: 1, runs: 5 };
const BACKTEST = { warmup: 0, runs: 3 };

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Creates the projects and identifies every trajectory agent in each, with three versions. */
async function setUp(
  db: PrismaClient,
  agentKeys: { key: string; name: string }[],
): Promise<{ projects: ScaleProject[]; main: ScaleProject; retention: ScaleProject }> {
  const specs = [
    { name: 'scale-main', weight: 70, guarded: true },
    { name: 'scale-other', weight: 20, guarded: false },
    { name: 'scale-retention', weight: 10, guarded: false },
  ];
  const projects: ScaleProject[] = [];
  for (const spec of specs) {
    const p = await createProject(db, spec.name);
    const agents = new Map<string, { agentId: string; versionIds: string[] }>();
    for (const a of agentKeys) {
      const versionIds: string[] = [];
      let agentId = '';
      for (const v of ['1.0.0', '1.1.0', '2.0.0']) {
        const r = await identifyAgent(db, p.id, {
          agent: { key: a.key, name: a.name },
          version: { version: v },
        });
        agentId = r.agentId;
        versionIds.push(r.agentVersionId);
      }
      agents.set(a.key, { agentId, versionIds });
    }
    projects.push({ projectId: p.id, weight: spec.weight, agents, guarded: spec.guarded });
  }
  return { projects, main: projects[0]!, retention: projects[2]! };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '10000000' },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const total = Number(values.events);
  // The first checkpoint (10 %) must hold the whole long session.
  if (!Number.isInteger(total) || total < 10 * BIG_SESSION_EVENTS)
    throw new Error(`--events must be an integer ≥ ${10 * BIG_SESSION_EVENTS}`);
  if (!process.env.DATABASE_URL) throw new Error(`DATABASE_URL not set.\n  ${COMMAND}`);
  const checkpoints = [0.1, 0.2, 0.5, 1].map((f) => Math.round(total * f));
  const machine = await machineInfo({ databaseUrl: process.env.DATABASE_URL, kafkaBrokers: [] });
  const started = Date.now();
  const loadBefore = loadAverage();
  const tdb = await createTestDatabase();
  const db = createPrisma(tdb.url);
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  try {
    const trajectories = loadTrajectories();
    const { projects, main: mainProject, retention } = await setUp(db, agentsOf(trajectories));
    await setRetentionDays(db, retention.projectId, { actor: 'bench', keyId: null }, RETENTION_DAYS);
    const key = generateApiKey();
    await createApiKey(db, mainProject.projectId, {
      name: 'bench',
      prefix: key.prefix,
      hash: hashApiKey(key.secret),
      scopes: ['read', 'admin'],
    });
    const now = new Date();
    const gen = new ScaleGenerator(
      trajectories,
      { projects, days: DAYS, now, seed: 17, bigSessionEvents: BIG_SESSION_EVENTS },
      total,
    );
    server = await listen(
      createApiApp(
        {
          db,
          logger: createLogger({ name: 'bench-scale', level: 'warn' }),
          dashboardDir: path.join(os.tmpdir(), 'no-dashboard'),
          sessionSecret: 'bench-scale-session-secret-0123456789abcdef',
        },
        () => true,
      ),
      0,
      '127.0.0.1',
    );
    log(
      `loading ${total.toLocaleString('en-US')} events into ${tdb.name}; checkpoints ${checkpoints.join(', ')}`,
    );

    const results: Checkpoint[] = [];
    let evaluations = 0;
    let previous = { events: 0, ms: 0 };
    let loadMs = 0;
    // Any agent and version of the main project with sessions: the first trajectory's.
    const firstAgent = [...mainProject.agents.values()][0]!;
    let page10: string | undefined;
    for (const checkpoint of checkpoints) {
      const t0 = performance.now();
      const inFlight = new Set<Promise<void>>();
      let failure: unknown;
      while (gen.produced < checkpoint && failure === undefined) {
        const batch = gen.next(Math.min(BATCH, checkpoint - gen.produced));
        evaluations += batch.evaluations.length;
        const p: Promise<void> = writeBatch(db, batch.events, batch.evaluations).then(
          (r) => {
            if (r.eventsInserted !== batch.events.length)
              failure = new Error(`stored ${r.eventsInserted} of ${batch.events.length} events`);
            inFlight.delete(p);
          },
          (err: unknown) => {
            failure = err;
            inFlight.delete(p);
          },
        );
        inFlight.add(p);
        if (inFlight.size >= WRITERS) await Promise.race(inFlight);
        if (gen.produced % 500_000 < BATCH)
          log(
            `${gen.produced.toLocaleString('en-US')} events (${gen.sessions.toLocaleString('en-US')} sessions)`,
          );
      }
      await Promise.all(inFlight);
      if (failure !== undefined) throw failure;
      const segmentMs = performance.now() - t0;
      loadMs += segmentMs;
      const segment = {
        events: checkpoint - previous.events,
        ms: segmentMs,
        rate: ((checkpoint - previous.events) / segmentMs) * 1000,
      };
      previous = { events: checkpoint, ms: loadMs };
      log(
        `checkpoint ${checkpoint.toLocaleString('en-US')}: segment at ${Math.round(segment.rate)} events/s; ANALYZE`,
      );
      const ta = performance.now();
      await db.$executeRawUnsafe('ANALYZE');
      const analyzeMs = performance.now() - ta;

      const bigSessionId = gen.bigSessionId!;
      page10 ??= await sessionEventsCursor(server.url, key.secret, bigSessionId, 10, 500);
      const measured: Measured[] = [];
      for (const s of scaleScenarios({
        agentId: firstAgent.agentId,
        agentVersionId: firstAgent.versionIds[0]!,
        bigSessionId,
        bigSessionPage10: page10,
        now,
        days: DAYS,
      })) {
        const m = await measure(server.url, key.secret, s, s.group === 'backtest' ? BACKTEST : HTTP);
        measured.push(m);
        log(
          `  ${s.group} / ${s.name}: p50 ${m.p50.toFixed(1)} ms, max ${m.max.toFixed(1)} ms (${m.rows} rows)`,
        );
      }
      const tr = performance.now();
      const run = await runRetention(db, retention.projectId, { trigger: 'manual' });
      const retentionMs = performance.now() - tr;
      if (!('run' in run) || run.run.status !== 'succeeded')
        throw new Error(`retention did not run: ${JSON.stringify(run)}`);
      const deleted = Object.values(run.run.deleted).reduce((a, b) => a + b, 0);
      const ret: RetentionFigure = {
        ms: retentionMs,
        sessions: run.run.sessions,
        rows: deleted,
        events: run.run.deleted.events ?? 0,
      };
      log(`  retention: ${ret.sessions} sessions, ${ret.rows} rows in ${Math.round(ret.ms)} ms`);
      const sizes = await tableSizes(tdb.url);
      results.push({
        events: checkpoint,
        sessions: gen.sessions,
        evaluations,
        segment,
        analyzeMs,
        measured,
        retention: ret,
        sizes,
      });
    }
    const section = renderScaleSection({
      machine,
      command: `${COMMAND}${total === 10_000_000 ? '' : ` -- --events ${total}`}`,
      date: new Date(),
      tookS: Math.round((Date.now() - started) / 1000),
      loadBefore,
      loadAfter: loadAverage(),
      prisma: packageVersion('@prisma/client'),
      total,
      batch: BATCH,
      writers: WRITERS,
      days: DAYS,
      retentionDays: RETENTION_DAYS,
      bigSessionEvents: BIG_SESSION_EVENTS,
      http: HTTP,
      backtest: BACKTEST,
      checkpoints: results,
    });
    process.stdout.write(`${section}\n`);
    if (!values['no-write']) {
      writeDocSection(path.join(ROOT, 'docs/benchmarks.md'), 'scale', section);
      log('wrote docs/benchmarks.md (section bench:scale)');
    }
  } finally {
    await server?.close();
    await db.$disconnect();
    if (values.keep) log(`kept database ${tdb.name}`);
    else await tdb.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
