import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { bootstrapProject } from '@agent-warden/api';
import { newId, type GuardDecision } from '@agent-warden/contracts';
import { createPrisma } from '@agent-warden/db';
import { createTestDatabase } from '../../test/support/database';
import { randomSuffix } from '../../test/support/env';
import { spawnTsx } from '../lib/child';
import type { Cleanup } from '../lib/cleanup';
import { cpuWindow, type CpuWindow } from '../lib/cpu';
import { loadAverage, type BenchEnv } from '../lib/env';
import { identifyAgents } from '../lib/http';
import { profileChild, type ProfileSummary } from '../lib/profile';
import { Pool } from '../lib/load';
import { mergeOpenLoop, openLoop, type OpenLoopResult } from './open-loop';
import { contextFor, generatePolicies, rng, toolNames, type ToolCall } from './policies';
import { provenanceFor } from './provenance';
import { vegetaAttack, writeTargets } from './vegeta';

/** Settings of the HTTP part. */
export interface HttpBenchOptions {
  policies: number;
  /** Request rates (requests/s), each run on both endpoints, in this order. */
  rates: number[];
  /**
   * Rounds per rate: each round runs the evaluate endpoint then the bare one for
   * `durationMs / rounds`, so both see the same background load; percentiles are over all rounds.
   */
  rounds: number;
  warmupMs: number;
  durationMs: number;
  /** Distinct pre-built request bodies, sent round robin. */
  bodies: number;
  /** Send a realistic `provenance` with each request (docs/provenance.md); false for an A/B without it. */
  provenance: boolean;
  /** Extra, unmeasured run of the evaluate endpoint at the highest rate with the gateway profiled, ms (0 = none). */
  profileMs: number;
  /**
   * The load generator: `node` (this process's open loop, `open-loop.ts`) or `vegeta` (a Go
   * constant-rate generator in its own process, `vegeta.ts`: its latencies hold no V8 pauses of the
   * load generator). The binary path when `vegeta`.
   */
  vegeta?: string;
}

/** What the machine did during one measured window. */
export interface WindowLoad {
  /** % of all cores busy (any process). */
  machineBusy: number;
  /** % of one core used by the gateway process and by this (load generator) process. */
  gatewayCpu: number;
  benchCpu: number;
  /** The rest of the machine (Kafka, PostgreSQL, other people's work), in % of one core. */
  restCpu: number;
  /** 1-minute load average at the end of the window (highest of the rounds). */
  load1: number;
}

/** Both endpoints at one rate. */
export interface RateResult {
  rate: number;
  evaluate: OpenLoopResult;
  evaluateLoad: WindowLoad;
  bare: OpenLoopResult;
  bareLoad: WindowLoad;
  /** p99 of each round, ms, in order (a stall of the machine shows as one high round). */
  evaluateRoundP99: number[];
  bareRoundP99: number[];
}

/** Counters of the gateway's evaluation recorder (its `/ready` body) after the runs. */
export interface RecorderCounters {
  buffered: number;
  published: number;
  rejected: number;
  failedFlushes: number;
}

/** Results of the HTTP part. */
export interface HttpBenchResult {
  options: HttpBenchOptions;
  nproc: number;
  rates: RateResult[];
  /** Evaluations answered 200 in all (check, warm-ups and measured windows). */
  evaluationsAnswered: number;
  /** Read from `/ready` after the runs, once the buffer drained; undefined when not reported. */
  recorder?: RecorderCounters;
  /** CPU profile of the gateway during the extra run. */
  profile?: ProfileSummary;
  /** Share of the bodies with a matched policy and mean body size (bytes), from a check before the load. */
  matchedShare: number;
  meanBodyBytes: number;
}

/** Spawns `bench/evaluate/gateway-main.ts` and resolves with its URL and pid once it listens. */
async function spawnBenchGateway(
  env: Record<string, string>,
  cleanup: Cleanup,
  timeoutMs = 60_000,
): Promise<{ url: string; pid: number; profile: (fn: () => Promise<unknown>) => Promise<ProfileSummary> }> {
  // BENCH_GATEWAY_NODE_OPTIONS: NODE_OPTIONS of the gateway child only (e.g. `--max-semi-space-size=64`).
  const nodeOptions = process.env.BENCH_GATEWAY_NODE_OPTIONS;
  const proc = spawnTsx(
    'bench/evaluate/gateway-main.ts',
    { PORT: '0', LOG_LEVEL: 'warn', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}), ...env },
    ['ignore', 'pipe', 'inherit', 'ipc'],
  );
  cleanup.add('stop gateway', () => proc.stop());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let url: string | undefined;
    proc.child.once('exit', (code) => {
      clearTimeout(timer);
      if (!url) reject(new Error(`gateway exited with ${code} before listening`));
    });
    readline.createInterface({ input: proc.child.stdout! }).on('line', (line) => {
      if (!url) {
        try {
          const j = JSON.parse(line) as { ready?: boolean; url?: string };
          if (j.ready && j.url) {
            url = j.url;
            clearTimeout(timer);
            return resolve({ url: j.url, pid: proc.pid, profile: (fn) => profileChild(proc.child, fn) });
          }
        } catch {
          /* a log line */
        }
      }
      process.stderr.write(line + '\n');
    });
  });
}

/** Warm-up of every round after the first, ms. */
const ROUND_WARMUP_MS = 300;

/** Mean CPU figures of equal-length windows; the highest 1-minute load average. */
function mergeLoad(ws: WindowLoad[]): WindowLoad {
  const avg = (f: (w: WindowLoad) => number) => Math.round(ws.reduce((a, w) => a + f(w), 0) / ws.length);
  return {
    machineBusy: avg((w) => w.machineBusy),
    gatewayCpu: avg((w) => w.gatewayCpu),
    benchCpu: avg((w) => w.benchCpu),
    restCpu: avg((w) => w.restCpu),
    load1: Math.max(...ws.map((w) => w.load1)),
  };
}

/** Keep-alive sockets of the load generator (node:http: cheaper per request than fetch). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

/** `POST url` with a JSON body over the keep-alive agent; resolves with the text of a 200, else throws. */
function post(url: string, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`POST ${url}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Part 2: `POST /v1/guardrails/evaluate` (monitor mode) of the real gateway in a child process,
 * on a fresh database with `policies` generated policies in the `policies` table, at a fixed
 * request rate (open loop, node:http with keep-alive); then the same load on `POST /bench/bare`
 * of the same process.
 */
export async function benchHttp(
  env: BenchEnv,
  calls: ToolCall[],
  o: HttpBenchOptions,
  cleanup: Cleanup,
  log: (msg: string) => void,
): Promise<HttpBenchResult> {
  const db = await createTestDatabase();
  cleanup.add('drop database', () => db.drop());
  const prisma = createPrisma(db.url, { poolMax: 1 });
  const apiKey = `aw_bench_${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
  try {
    const { projectId } = await bootstrapProject(prisma, { initApiKey: apiKey });
    await prisma.policy.createMany({
      data: generatePolicies(o.policies, toolNames(calls)).map((p) => ({
        id: newId(),
        projectId,
        name: p.name,
        enabled: true,
        decision: p.decision,
        match: p.match as object,
        version: 1,
      })),
    });
  } finally {
    await prisma.$disconnect();
  }

  const prefix = `bench${randomSuffix()}.`;
  const { url, pid, profile } = await spawnBenchGateway(
    { DATABASE_URL: db.url, KAFKA_BROKERS: env.kafkaBrokers.join(','), KAFKA_TOPIC_PREFIX: prefix },
    cleanup,
  );
  log(`gateway at ${url} with ${o.policies} policies, topic prefix ${prefix}`);
  const agent = [
    ...(await identifyAgents(url, apiKey, [{ key: 'bench-agent', name: 'bench agent' }])).values(),
  ][0]!;

  const r = rng(11);
  const bodies = Array.from({ length: o.bodies }, () => {
    const c = r.pick(calls);
    return JSON.stringify({
      agentId: agent.agentId,
      agentVersionId: agent.agentVersionId,
      mode: 'monitor',
      tool: { name: c.tool },
      arguments: c.args,
      ...contextFor(r),
      // What a client tracking data flow sends with every guarded call (docs/provenance.md).
      provenance: o.provenance ? provenanceFor(c, r) : undefined,
    });
  });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const evalUrl = `${url}/v1/guardrails/evaluate`;
  const bareUrl = `${url}/bench/bare`;

  // Check: every body is accepted, and how many match a policy.
  let matched = 0;
  for (const b of bodies.slice(0, 300)) {
    const d = JSON.parse(await post(evalUrl, headers, b)) as GuardDecision;
    if (d.matchedGuardrails.length > 0) matched += 1;
  }
  const matchedShare = matched / Math.min(300, bodies.length);
  const meanBodyBytes = bodies.reduce((a, b) => a + Buffer.byteLength(b), 0) / bodies.length;
  log(
    `check: ${Math.round(matchedShare * 100)}% of requests match a policy; mean body ${Math.round(meanBodyBytes)} B`,
  );

  const pool = new Pool(bodies);
  let answered = Math.min(300, bodies.length);
  const nproc = os.availableParallelism();
  const targetsDir = o.vegeta ? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-vegeta-')) : '';
  if (o.vegeta)
    cleanup.add('remove vegeta targets', async () => fs.rmSync(targetsDir, { recursive: true, force: true }));
  const targetFiles = o.vegeta
    ? new Map([
        [evalUrl, writeTargets(targetsDir, 'evaluate', evalUrl, headers, bodies)],
        [bareUrl, writeTargets(targetsDir, 'bare', bareUrl, headers, bodies)],
      ])
    : undefined;
  const runVegeta = async (target: string, rate: number, warmupMs: number, durationMs: number) => {
    const targetsFile = targetFiles!.get(target)!;
    if (warmupMs > 0) await vegetaAttack({ bin: o.vegeta!, targetsFile, rate, durationMs: warmupMs });
    let stop: (() => CpuWindow) | undefined;
    const r = await vegetaAttack({
      bin: o.vegeta!,
      targetsFile,
      rate,
      durationMs,
      onStart: () => (stop = cpuWindow({ gateway: pid })),
    });
    if (target === evalUrl) answered += r.requests + Math.round((warmupMs / 1000) * rate);
    const load = toLoad(stop!());
    // vegeta has ended by now: its CPU comes from this process's children's times.
    load.benchCpu = Math.round((r.cpuSeconds / (durationMs / 1000)) * 100);
    load.restCpu = Math.max(0, load.machineBusy * nproc - load.gatewayCpu - load.benchCpu);
    return { r, load };
  };
  const toLoad = (w: CpuWindow): WindowLoad => {
    const gatewayCpu = w.processes.gateway ?? Number.NaN;
    const benchCpu = w.processes.bench ?? Number.NaN;
    return {
      machineBusy: w.machineBusy,
      gatewayCpu,
      benchCpu,
      restCpu: Math.max(0, w.machineBusy * nproc - gatewayCpu - benchCpu),
      load1: loadAverage()[0],
    };
  };
  const run = async (target: string, rate: number, warmupMs: number, durationMs: number) => {
    if (o.vegeta) return runVegeta(target, rate, warmupMs, durationMs);
    let stop: (() => CpuWindow) | undefined;
    const r = await openLoop({
      rate,
      warmupMs,
      durationMs,
      send: async () => {
        await post(target, headers, pool.next());
        if (target === evalUrl) answered += 1;
      },
      onMeasureStart: () => (stop = cpuWindow({ gateway: pid, bench: process.pid })),
    });
    return { r, load: toLoad(stop!()) };
  };
  const rates: RateResult[] = [];
  const roundMs = o.durationMs / o.rounds;
  for (const rate of o.rates) {
    log(
      `${rate} req/s: ${o.rounds} rounds of (evaluate, bare), ${roundMs / 1000} s measured each (1-min load ${loadAverage()[0]})`,
    );
    const ev: Awaited<ReturnType<typeof run>>[] = [];
    const bare: Awaited<ReturnType<typeof run>>[] = [];
    for (let k = 0; k < o.rounds; k++) {
      // The first round of each endpoint warms up for warmupMs; later ones for a fraction of a second.
      const warm = k === 0 ? o.warmupMs : ROUND_WARMUP_MS;
      ev.push(await run(evalUrl, rate, warm, roundMs));
      bare.push(await run(bareUrl, rate, warm, roundMs));
    }
    const row: RateResult = {
      rate,
      evaluate: mergeOpenLoop(ev.map((x) => x.r)),
      evaluateLoad: mergeLoad(ev.map((x) => x.load)),
      bare: mergeOpenLoop(bare.map((x) => x.r)),
      bareLoad: mergeLoad(bare.map((x) => x.load)),
      evaluateRoundP99: ev.map((x) => x.r.p99),
      bareRoundP99: bare.map((x) => x.r.p99),
    };
    log(
      `  evaluate p99 ${row.evaluate.p99.toFixed(2)} ms, bare p99 ${row.bare.p99.toFixed(2)} ms; machine ${row.evaluateLoad.machineBusy} / ${row.bareLoad.machineBusy} % busy`,
    );
    rates.push(row);
  }
  let gatewayProfile: ProfileSummary | undefined;
  if (o.profileMs > 0) {
    const rate = Math.max(...o.rates);
    log(`profile: evaluate at ${rate} req/s for ${o.profileMs / 1000} s (not measured)`);
    gatewayProfile = await profile(() =>
      openLoop({
        rate,
        warmupMs: 0,
        durationMs: o.profileMs,
        send: async () => {
          await post(evalUrl, headers, pool.next());
          answered += 1;
        },
      }),
    );
  }
  const recorder = await recorderCounters(url);
  return {
    options: o,
    nproc,
    rates,
    evaluationsAnswered: answered,
    recorder,
    profile: gatewayProfile,
    matchedShare,
    meanBodyBytes,
  };
}

/** The recorder's counters from `/ready`, polled until its buffer is empty (at most ~10 s). */
async function recorderCounters(url: string): Promise<RecorderCounters | undefined> {
  let last: RecorderCounters | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${url}/ready`);
    const body = (await res.json()) as { evaluationRecorder?: RecorderCounters };
    last = body.evaluationRecorder;
    if (!last || last.buffered === 0) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}
