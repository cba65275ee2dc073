/**
 * `npm run bench:ingest` — throughput and latency of the ingest pipeline on the real services:
 *   1. the gateway into Kafka vs a bare `@platformatic/kafka` producer, and two floors on the
 *      gateway's own server (parse only; parse and produce unvalidated: bench/lib/floor.ts),
 *   2. the projector from Kafka into PostgreSQL vs a bare multi-row INSERT,
 *   3. the time until an accepted event is readable from the api, under a steady load.
 * Needs PostgreSQL and Kafka (`source .infra/env` first). Writes its section of
 * docs/benchmarks.md and prints the same tables.
 *
 *   source .infra/env && npm run bench:ingest [-- --only gateway,projector,visibility] [-- --no-write]
 *
 * `--only` runs some parts (the document is then not written); `--no-write` only prints.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Cleanup } from './lib/cleanup';
import { loadAverage, machineInfo, packageVersion, requireBenchEnv, ROOT } from './lib/env';
import { writeDocSection } from './lib/doc-section';
import { renderIngestSection, type IngestResults } from './lib/report';
import { loadTrajectories } from './lib/workload';
import { benchGateway, type GatewayBenchResult } from './parts/gateway';
import { benchProjector, type ProjectorBenchResult } from './parts/projector';
import { benchVisibility, type VisibilityBenchResult } from './parts/visibility';

const PARTS = ['gateway', 'projector', 'visibility'] as const;
type Part = (typeof PARTS)[number];

/** The whole run is stopped (and cleaned up) past this, ms. */
const RUN_TIMEOUT_MS = 6 * 60_000;
const COMMAND = 'source .infra/env && npm run bench:ingest';

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, 'no-write': { type: 'boolean', default: false } },
  });
  const only = values.only ? (values.only.split(',').map((s) => s.trim()) as Part[]) : [...PARTS];
  const unknown = only.filter((p) => !PARTS.includes(p));
  if (unknown.length > 0)
    throw new Error(`unknown part(s) ${unknown.join(', ')}; parts: ${PARTS.join(', ')}`);

  const env = await requireBenchEnv();
  const startedAt = new Date();
  const t0 = performance.now();
  const machine = await machineInfo(env);
  log(`load average ${machine.load.join(' / ')} on ${machine.nproc} vCPU; parts: ${only.join(', ')}`);
  const trajectories = loadTrajectories();

  const cleanup = new Cleanup();
  const abort = async (why: string, code: number) => {
    log(`${why}; cleaning up`);
    await cleanup.runAll();
    process.exit(code);
  };
  process.once('SIGINT', () => void abort('interrupted', 130));
  process.once('SIGTERM', () => void abort('terminated', 143));
  const watchdog = setTimeout(() => void abort(`run exceeded ${RUN_TIMEOUT_MS / 1000} s`, 1), RUN_TIMEOUT_MS);

  let gateway: GatewayBenchResult | undefined;
  let projector: ProjectorBenchResult | undefined;
  let visibility: VisibilityBenchResult | undefined;
  try {
    if (only.includes('gateway')) {
      log('part 1: gateway into Kafka vs a bare @platformatic/kafka producer');
      gateway = await benchGateway(
        env,
        trajectories,
        {
          concurrencies: [8, 32],
          batchSize: 25,
          initialWarmupMs: 3_000,
          rounds: 3,
          warmupMs: 1_000,
          durationMs: 4_000,
          partitions: 3,
          poolBatches: 1_000,
          profileMs: 5_000,
        },
        cleanup,
        log,
      );
      await cleanup.runAll();
    }
    if (only.includes('projector')) {
      log('part 2: projector vs a bare multi-row INSERT');
      projector = await benchProjector(
        env,
        trajectories,
        { records: 50_000, partitions: 3, concurrency: 3, drainTimeoutMs: 90_000 },
        cleanup,
        log,
      );
      await cleanup.runAll();
    }
    if (only.includes('visibility')) {
      log('part 3: visibility latency at 2,000 events/s');
      visibility = await benchVisibility(
        trajectories,
        {
          eventsPerSecond: 2_000,
          batchSize: 25,
          warmupMs: 3_000,
          probes: 200,
          probeIntervalMs: 100,
          pollMs: 15,
          pollLimit: 30,
          settleMs: 15_000,
          maxInFlight: 256,
        },
        cleanup,
        log,
      );
      await cleanup.runAll();
    }
  } finally {
    clearTimeout(watchdog);
    await cleanup.runAll();
  }

  const results: Partial<IngestResults> = {
    startedAt,
    command: COMMAND,
    machine,
    loadAfter: loadAverage(),
    seconds: (performance.now() - t0) / 1000,
    versions: { kafka: packageVersion('@platformatic/kafka'), prisma: packageVersion('@prisma/client') },
    gateway,
    projector,
    visibility,
  };
  if (!gateway || !projector || !visibility) {
    process.stdout.write(JSON.stringify(results, null, 2) + '\n');
    log('not every part ran: docs/benchmarks.md left unchanged');
    return;
  }
  const section = renderIngestSection(results as IngestResults);
  process.stdout.write(section + '\n');
  if (values['no-write']) return;
  const file = path.join(ROOT, 'docs/benchmarks.md');
  writeDocSection(file, 'ingest', section);
  log(`wrote ${path.relative(ROOT, file)}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:ingest failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
