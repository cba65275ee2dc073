import { SendCoalescer } from '@agent-warden/bus';
import { bootstrapProject } from '@agent-warden/api';
import { TOPICS } from '@agent-warden/contracts';
import { createPrisma } from '@agent-warden/db';
import type { Trajectory } from '../../scripts/replay/trajectories';
import { createTestDatabase } from '../../test/support/database';
import { randomSuffix } from '../../test/support/env';
import type { Cleanup } from '../lib/cleanup';
import { cpuWindow, type CpuWindow } from '../lib/cpu';
import type { BenchEnv } from '../lib/env';
import { FLOOR_PATH, FLOOR_PRODUCE_PATH } from '../lib/floor';
import { spawnGateway } from '../lib/gateway-process';
import { identifyAgents, postEvents } from '../lib/http';
import { connectBareProducer, deleteTopics } from '../lib/kafka';
import { closedLoop, Pool, type ClosedLoopResult } from '../lib/load';
import type { ProfileSummary } from '../lib/profile';
import { mean, median } from '../lib/stats';
import { agentsOf, eventsBody, EventStream, toWireRecords, type WireRecord } from '../lib/workload';

/** Settings of part 1. */
export interface GatewayBenchOptions {
  concurrencies: number[];
  batchSize: number;
  /** Unmeasured gateway load before the first measurement (connections, JIT), ms. */
  initialWarmupMs: number;
  /** Rounds of (gateway, floor, floor + produce, bare, bare coalesced) runs, alternated so that load from other work hits all five alike. */
  rounds: number;
  /** Per run: warm-up, then measured window, ms. */
  warmupMs: number;
  durationMs: number;
  partitions: number;
  /** Distinct pre-built batches, sent round robin. */
  poolBatches: number;
  /** Length of the extra, unmeasured run at the highest concurrency during which the gateway is profiled, ms (0 = none). */
  profileMs: number;
}

/** One measured run. */
export interface Measured {
  run: ClosedLoopResult;
  cpu: CpuWindow;
}

/** The runs of one setup: medians over the rounds, and the spread. */
export interface Series {
  runs: Measured[];
  /** Median, lowest and highest events/s of the runs. */
  eventsPerSecond: number;
  min: number;
  max: number;
  /** Medians of the runs' request latency percentiles, ms. */
  latencyP50Ms: number;
  latencyP95Ms: number;
  /** Median CPU % of one core per watched process, and of the whole machine. */
  cpu: Record<string, number>;
  machineBusy: number;
  errors: number;
}

/** Results of part 1 at one concurrency. */
export interface GatewayRow {
  concurrency: number;
  gateway: Series;
  /** The parse-only floor route on the gateway's server (bench/lib/floor.ts), same bodies and clients. */
  floor: Series;
  /** The parse-and-produce floor route on the same server: the parse-only floor plus the gateway's publish, unvalidated. */
  floorProduce: Series;
  bare: Series;
  bareCoalesced: Series;
}

function series(runs: Measured[]): Series {
  const rates = runs.map((m) => m.run.eventsPerSecond);
  const names = Object.keys(runs[0]?.cpu.processes ?? {});
  return {
    runs,
    eventsPerSecond: median(rates),
    min: Math.min(...rates),
    max: Math.max(...rates),
    latencyP50Ms: median(runs.map((m) => m.run.latencyP50Ms)),
    latencyP95Ms: median(runs.map((m) => m.run.latencyP95Ms)),
    cpu: Object.fromEntries(names.map((k) => [k, median(runs.map((m) => m.cpu.processes[k] ?? 0))])),
    machineBusy: median(runs.map((m) => m.cpu.machineBusy)),
    errors: runs.reduce((a, m) => a + m.run.errors, 0),
  };
}

/** Results of part 1. */
export interface GatewayBenchResult {
  options: GatewayBenchOptions;
  rows: GatewayRow[];
  /** Mean bytes of one CloudEvent record value and of one request body. */
  meanRecordBytes: number;
  meanBodyBytes: number;
  /** CPU profile of the gateway process during the extra run (not one of the measured runs). */
  profile?: ProfileSummary;
}

/**
 * Part 1: events/s the gateway accepts (`POST /v1/events`, closed loop, N keep-alive fetch
 * clients) next to the parse-only and parse-and-produce floor routes on the same server (same clients and
 * bodies; bench/lib/floor.ts) and a bare
 * `@platformatic/kafka` producer configured like the gateway's, with the same records
 * from the same number of concurrent senders — once with one `send` per 25-record batch, once with
 * concurrent batches merged by the bus's own `SendCoalescer` (what the gateway does). The gateway
 * runs in a child process (`start()` from `@agent-warden/gateway`) on a fresh database with a
 * bootstrapped key and identified agents; the bare producers run in this process.
 */
export async function benchGateway(
  env: BenchEnv,
  trajectories: Trajectory[],
  o: GatewayBenchOptions,
  cleanup: Cleanup,
  log: (msg: string) => void,
): Promise<GatewayBenchResult> {
  const db = await createTestDatabase();
  cleanup.add('drop gateway database', () => db.drop());
  const prisma = createPrisma(db.url, { poolMax: 1 });
  const apiKey = `aw_bench_${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
  const { projectId } = await bootstrapProject(prisma, { initApiKey: apiKey });
  await prisma.$disconnect();

  const prefix = `bench${randomSuffix()}.`;
  // Registered first, so it runs last: after the gateway and the bare producer are gone.
  cleanup.add("delete the run's topics", () => deleteTopics(env.kafkaBrokers, prefix));
  const gw = await spawnGateway({
    DATABASE_URL: db.url,
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    WARDEN_EVENT_PARTITIONS: String(o.partitions),
  });
  cleanup.add('stop gateway', () => gw.stop());
  log(`gateway pid ${gw.pid} at ${gw.url}, topic ${prefix}${TOPICS.agentEvents}`);

  const agents = await identifyAgents(gw.url, apiKey, agentsOf(trajectories));
  const stream = new EventStream(trajectories, agents);
  const batches = Array.from({ length: o.poolBatches }, () => stream.take(o.batchSize));
  const bodies = batches.map(eventsBody);
  const records = batches.map((b) => toWireRecords(projectId, b));
  const meanRecordBytes = mean(records.flat().map((r) => Buffer.byteLength(r.value)));
  const meanBodyBytes = mean(bodies.map((b) => Buffer.byteLength(b)));

  const bare = await connectBareProducer(env.kafkaBrokers);
  cleanup.add('disconnect bare producer', () => bare.disconnect());
  const topic = prefix + TOPICS.agentEvents;
  const coalescer = new SendCoalescer<WireRecord>((items) => bare.send(topic, items));

  const bodyPool = new Pool(bodies);
  const recordPool = new Pool(records);
  const senders = {
    gateway: () => postEvents(gw.url, apiKey, bodyPool.next()),
    floor: () => postEvents(gw.url, apiKey, bodyPool.next(), FLOOR_PATH),
    floorProduce: () => postEvents(gw.url, apiKey, bodyPool.next(), FLOOR_PRODUCE_PATH),
    bare: async () => {
      const batch = recordPool.next();
      await bare.send(topic, batch);
      return batch.length;
    },
    bareCoalesced: async () => {
      const batch = recordPool.next();
      await coalescer.submit(batch);
      return batch.length;
    },
  };
  const pids = {
    gateway: { gateway: gw.pid, bench: process.pid },
    floor: { gateway: gw.pid, bench: process.pid },
    floorProduce: { gateway: gw.pid, bench: process.pid },
    bare: { bench: process.pid },
    bareCoalesced: { bench: process.pid },
  };
  const modes = ['gateway', 'floor', 'floorProduce', 'bare', 'bareCoalesced'] as const;

  await closedLoop({
    concurrency: Math.max(...o.concurrencies),
    warmupMs: 0,
    durationMs: o.initialWarmupMs,
    send: senders.gateway,
  });
  const rows: GatewayRow[] = [];
  for (const concurrency of o.concurrencies) {
    const runs: Record<(typeof modes)[number], Measured[]> = {
      gateway: [],
      floor: [],
      floorProduce: [],
      bare: [],
      bareCoalesced: [],
    };
    for (let round = 0; round < o.rounds; round += 1)
      for (const mode of modes) {
        const window: { end?: () => CpuWindow } = {};
        const run = await closedLoop({
          concurrency,
          warmupMs: o.warmupMs,
          durationMs: o.durationMs,
          send: senders[mode],
          onMeasureStart: () => (window.end = cpuWindow(pids[mode])),
        });
        runs[mode].push({ run, cpu: window.end!() });
      }
    const row: GatewayRow = {
      concurrency,
      gateway: series(runs.gateway),
      floor: series(runs.floor),
      floorProduce: series(runs.floorProduce),
      bare: series(runs.bare),
      bareCoalesced: series(runs.bareCoalesced),
    };
    const pct = (a: Series, b: Series) => `${Math.round((a.eventsPerSecond / b.eventsPerSecond) * 100)} %`;
    log(
      `c=${concurrency}: gateway ${Math.round(row.gateway.eventsPerSecond)}, floor ${Math.round(row.floor.eventsPerSecond)}, ` +
        `floor + produce ${Math.round(row.floorProduce.eventsPerSecond)}, ` +
        `bare ${Math.round(row.bare.eventsPerSecond)}, bare coalesced ${Math.round(row.bareCoalesced.eventsPerSecond)} events/s ` +
        `(medians of ${o.rounds}); gateway ÷ bare ${pct(row.gateway, row.bare)}, floor ÷ bare ${pct(row.floor, row.bare)}, ` +
        `gateway ÷ floor ${pct(row.gateway, row.floor)}, floor + produce ÷ bare ${pct(row.floorProduce, row.bare)}, ` +
        `gateway ÷ floor + produce ${pct(row.gateway, row.floorProduce)}; CPU gateway ${row.gateway.cpu.gateway} % / floor ${row.floor.cpu.gateway} % / floor + produce ${row.floorProduce.cpu.gateway} %, ` +
        `bench ${row.gateway.cpu.bench} % / ${row.floor.cpu.bench} %`,
    );
    rows.push(row);
  }
  let profile: ProfileSummary | undefined;
  if (o.profileMs > 0) {
    profile = await gw.profile(() =>
      closedLoop({
        concurrency: Math.max(...o.concurrencies),
        warmupMs: 0,
        durationMs: o.profileMs,
        send: senders.gateway,
      }),
    );
  }
  return { options: o, rows, meanRecordBytes, meanBodyBytes, profile };
}
