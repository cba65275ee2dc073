/**
 * `npm run bench:producers` — CPU cost of publishing guardrail-evaluation records to Kafka with
 * `PlatformaticPublisher` (`@platformatic/kafka`: what `KafkaBus.publish` and the evaluation
 * publisher thread run), sending every 5 ms and every 20 ms (`WARDEN_EVALUATION_FLUSH_MS`, old and
 * new default) at 1,000 records/s — the load of 1,000 guard checks/s. Each configuration runs in its
 * own process (`bench/producers/run.ts`), `--repeats` times, interleaved; the table gives the median
 * of the repeats. Idempotent producer, `acks: -1`, one produce request in flight. It used to compare
 * kafkajs as well; that comparison was retired with kafkajs (docs/benchmarks.md keeps its figures).
 * Needs Kafka and PostgreSQL (`source .infra/env` first); writes its section of docs/benchmarks.md.
 *
 *   source .infra/env && npm run bench:producers [-- --no-write] [-- --repeats 3]
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { KafkaBus } from '@agent-warden/bus';
import { TOPICS } from '@agent-warden/contracts';
import { silentLogger } from '@agent-warden/observability';
import { randomSuffix } from '../test/support/env';
import { spawnTsx } from './lib/child';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, machineInfo, packageVersion, requireBenchEnv, ROOT } from './lib/env';
import { median } from './lib/stats';
import type { ProducerRun } from './producers/run';

const ARGS = process.argv.slice(2).join(' ');
const COMMAND = `source .infra/env && npm run bench:producers${ARGS ? ` -- ${ARGS}` : ''}`;
const FLUSH_MS = [5, 20];
const RATE = 1_000;
const SECONDS = 10;

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** The broker's pid from infra/kafka's pid file, when this machine runs it (NaN otherwise). */
function brokerPid(): number {
  const file = path.join(ROOT, '.infra/kafka/kafka.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : Number.NaN;
}

/** Runs one configuration in a child process and resolves with its JSON line. */
function runOne(env: Record<string, string>): Promise<ProducerRun> {
  const proc = spawnTsx('bench/producers/run.ts', env, ['ignore', 'pipe', 'inherit']);
  return new Promise((resolve, reject) => {
    let result: ProducerRun | undefined;
    readline.createInterface({ input: proc.child.stdout! }).on('line', (line) => {
      try {
        result = JSON.parse(line) as ProducerRun;
      } catch {
        process.stderr.write(line + '\n');
      }
    });
    proc.child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`run ${JSON.stringify(env)} exited with ${code}`)),
    );
  });
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toString() : '–');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'no-write': { type: 'boolean', default: false }, repeats: { type: 'string', default: '3' } },
  });
  const repeats = Math.max(1, Number(values.repeats));
  const env = await requireBenchEnv();
  const machine = await machineInfo(env);
  const prefix = `benchprod${randomSuffix()}.`;
  const bus = new KafkaBus({
    brokers: env.kafkaBrokers,
    clientId: 'bench-producers',
    topicPrefix: prefix,
    logger: silentLogger(),
  });
  await bus.ensureTopics([{ topic: TOPICS.guardrailEvaluations, numPartitions: 6 }]);
  await bus.close();
  const pid = brokerPid();
  const startedAt = new Date();
  const t0 = performance.now();
  const runs: ProducerRun[] = [];
  for (let k = 0; k < repeats; k++)
    for (const flush of FLUSH_MS) {
      const r = await runOne({
        FLUSH_MS: String(flush),
        RATE: String(RATE),
        SECONDS: String(SECONDS),
        WARMUP_SECONDS: '2',
        KAFKA_BROKERS: env.kafkaBrokers.join(','),
        TOPIC_PREFIX: prefix,
        ...(Number.isFinite(pid) ? { BROKER_PID: String(pid) } : {}),
      });
      log(
        `every ${flush} ms: ${f0(r.cpuUsPerRecord)} µs CPU per record, broker ${f0(r.brokerCpuPercent)} %, ack p99 ${f2(r.ackP99Ms)} ms`,
      );
      runs.push(r);
    }
  const version = packageVersion('@platformatic/kafka');
  const rows = FLUSH_MS.map((flush) => {
    const rs = runs.filter((r) => r.flushMs === flush);
    const us = rs.map((r) => r.cpuUsPerRecord);
    return `| \`PlatformaticPublisher\` (@platformatic/kafka ${version}) | ${flush} ms | ${f0(median(us))} µs | ${f0(Math.min(...us))} – ${f0(Math.max(...us))} µs | ${f1(median(rs.map((r) => r.cpuPercent)))} % | ${f1(median(rs.map((r) => r.brokerCpuPercent)))} % | ${f2(median(rs.map((r) => r.ackP50Ms)))} ms | ${f2(median(rs.map((r) => r.ackP99Ms)))} ms |`;
  });
  const m = machine;
  const section = [
    '## Kafka producers for evaluation records (`bench:producers`)',
    '',
    `Run ${startedAt.toISOString()} with \`${COMMAND}\` (${Math.round((performance.now() - t0) / 1000)} s).`,
    `Machine: ${m.nproc} vCPU (nproc), ${m.cpuModel}, ${m.memoryGiB} GiB; Node ${m.node}; Kafka ${m.kafka}. Load average (1/5/15 min): ${m.load.join(' / ')} before, ${loadAverage().join(' / ')} after.`,
    '',
    `${fmt(RATE)} records/s of guardrail-evaluation records (CloudEvents JSON built from the real tool calls of the shared trajectories, mean ${f0(runs[0]?.meanRecordBytes ?? Number.NaN)} B) to a 6-partition topic, for ${SECONDS} s after a 2 s warm-up, published the way the gateway's recorder does: every *flush* the records due so far in one \`publish\`, concurrent publishes coalesced into one produce request in flight; idempotent producer, \`acks: -1\`, keys placed as the Java client does. Each configuration in its own process, ${repeats} repeats interleaved. *CPU per record* = user + system CPU of that process (all its threads) over the window ÷ records; *broker* = the Kafka JVM's CPU over the same window in % of one core (it serves nothing else of this bench); *ack* = from \`publish\` to its acknowledgement.`,
    '',
    '| producer | flush | CPU per record (median) | min – max | CPU, % of one core | broker CPU | ack p50 | ack p99 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'The gateway publishes evaluation records with `PlatformaticPublisher` from a worker thread, every 20 ms (docs/decisions.md "The evaluation thread publishes with `@platformatic/kafka`, every 20 ms"). The comparison with kafkajs that this benchmark used to run is kept below, under "Kafka producers: the retired kafkajs comparison".',
  ].join('\n');
  process.stdout.write(section + '\n');
  if (values['no-write']) return;
  const file = path.join(ROOT, 'docs/benchmarks.md');
  writeDocSection(file, 'producers', section);
  log(`wrote ${path.relative(ROOT, file)}`);
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:producers failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
