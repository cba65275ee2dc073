/**
 * `npm run bench:evaluate` — cost of a guardrail evaluation:
 *   1. the engine (`createEngine` of `@agent-warden/policy`): µs per evaluation with 10, 100 and
 *      1,000 generated policies over the real tool calls of the shared trajectories;
 *   2. `POST /v1/guardrails/evaluate` of the real gateway (child process, 100 policies) at fixed
 *      request rates (1,000 — the target — and lower ones the machine can sustain when shared), open
 *      loop, next to a bare express endpoint of the same server at the same rate, with the
 *      machine's load (CPU busy, per-process CPU, load average) of each measured window.
 * `--no-provenance` sends the requests without their `provenance` (an A/B of its cost).
 * Needs PostgreSQL and Kafka (`source .infra/env` first). Waits (up to `--max-wait-s`, default
 * 300) for the 1-minute load average to fall below 1.5 before measuring. Writes its section of
 * docs/benchmarks.md and prints it.
 *
 *   source .infra/env && npm run bench:evaluate [-- --no-write] [-- --max-wait-s 0] [-- --rates 1000,500,250]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { disableAllocationSitePretenuring } from '@agent-warden/gateway';
import { findVegeta } from './evaluate/vegeta';
import { Cleanup } from './lib/cleanup';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, machineInfo, requireBenchEnv, ROOT } from './lib/env';
import { sleep } from './lib/stats';
import { loadTrajectories } from './lib/workload';
import { benchEngine } from './evaluate/engine';
import { benchHttp } from './evaluate/http';
import { toolCallsOf } from './evaluate/policies';
import { renderEvaluateSection } from './evaluate/report';

const ARGS = process.argv.slice(2).join(' ');
const COMMAND = `source .infra/env && npm run bench:evaluate${ARGS ? ` -- ${ARGS}` : ''}`;
const RUN_TIMEOUT_MS = 10 * 60_000;
const LOAD_LIMIT = 1.5;

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

function load1(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/** Polls /proc/loadavg every 10 s until the 1-minute load is below the limit or `maxMs` passed. */
async function waitForQuietMachine(maxMs: number): Promise<{ waitedS: number; load1: number }> {
  const t0 = performance.now();
  let l = load1();
  while (l >= LOAD_LIMIT && performance.now() - t0 < maxMs) {
    log(`1-min load average ${l} ≥ ${LOAD_LIMIT}; waiting`);
    await sleep(10_000);
    l = load1();
  }
  return { waitedS: Math.round((performance.now() - t0) / 1000), load1: l };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'no-write': { type: 'boolean', default: false },
      'max-wait-s': { type: 'string', default: '300' },
      rates: { type: 'string', default: '1000,500,250' },
      'no-provenance': { type: 'boolean', default: false },
      // The load generator: node (this process's open loop) or vegeta (Go, its own process; see bench/evaluate/vegeta.ts).
      load: { type: 'string', default: 'node' },
    },
  });
  const rates = values.rates
    .split(',')
    .map((x) => Number(x.trim()))
    .filter((x) => Number.isFinite(x) && x > 0);
  if (rates.length === 0) throw new Error('--rates: give request rates per second, e.g. 1000,500,250');
  if (values.load !== 'node' && values.load !== 'vegeta') throw new Error('--load: node or vegeta');
  const vegeta = values.load === 'vegeta' ? findVegeta() : undefined;
  if (values.load === 'vegeta' && !vegeta)
    throw new Error(
      '--load vegeta: no vegeta binary (go install github.com/tsenart/vegeta/v12@v12.13.0, or set VEGETA_BIN)',
    );
  // The Node load generator runs without V8 allocation-site pretenuring, as the gateway does
  // (services/gateway/src/gc-tuning.ts): otherwise its own long scavenges delay sends to both
  // endpoints and count against them (docs/benchmarks.md "Guard check on Node.js 24 after the fix").
  if (values.load === 'node') disableAllocationSitePretenuring();
  const env = await requireBenchEnv();
  const calls = toolCallsOf(loadTrajectories());

  const cleanup = new Cleanup();
  const abort = async (why: string, code: number) => {
    log(`${why}; cleaning up`);
    await cleanup.runAll();
    process.exit(code);
  };
  process.once('SIGINT', () => void abort('interrupted', 130));
  process.once('SIGTERM', () => void abort('terminated', 143));
  const wait = await waitForQuietMachine(Number(values['max-wait-s']) * 1000);
  // The watchdog covers the measuring, not the wait for a quiet machine.
  const watchdog = setTimeout(() => void abort(`run exceeded ${RUN_TIMEOUT_MS / 1000} s`, 1), RUN_TIMEOUT_MS);
  const startedAt = new Date();
  const t0 = performance.now();
  const machine = await machineInfo(env);
  log(`load average ${machine.load.join(' / ')} on ${machine.nproc} vCPU (waited ${wait.waitedS} s)`);
  try {
    log(`part 1: engine over ${calls.length} real tool calls`);
    const engine = benchEngine(calls, [10, 100, 1_000]);
    log('part 2: HTTP at a fixed rate');
    const http = await benchHttp(
      env,
      calls,
      {
        policies: 100,
        rates,
        rounds: 10,
        warmupMs: 2_000,
        durationMs: 10_000,
        bodies: 2_000,
        profileMs: 5_000,
        provenance: !values['no-provenance'],
        vegeta,
      },
      cleanup,
      log,
    );
    await cleanup.runAll();
    const section = renderEvaluateSection({
      startedAt,
      command: COMMAND,
      machine,
      loadAfter: loadAverage(),
      waitedS: wait.waitedS,
      loadLimit: LOAD_LIMIT,
      seconds: (performance.now() - t0) / 1000,
      engine,
      http,
    });
    process.stdout.write(section + '\n');
    if (values['no-write']) return;
    const file = path.join(ROOT, 'docs/benchmarks.md');
    writeDocSection(file, 'evaluate', section);
    log(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    clearTimeout(watchdog);
    await cleanup.runAll();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:evaluate failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
