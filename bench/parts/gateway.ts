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
import { spawnGateway } from '../lib/gateway-process';
import { identifyAgents, postEvents } from '../lib/http';
import { connectBareProducer } from '../lib/kafka';
import { closedLoop, Pool, type ClosedLoopResult } from '../lib/load';
import { mean } from '../lib/stats';
import { agentsOf, eventsBody, EventStream, toWireRecords, type WireRecord } from '../lib/workload';

/** Settings of part 1. */
export interface GatewayBenchOptions {
  concurrencies: number[];
  batchSize: number;
  warmupMs: number;
  durationMs: number;
  partitions: number;
  /** Distinct pre-built batches, sent round robin. */
  poolBatches: number;
}

/** One measured load generator setup. */
export interface Measured {
  run: ClosedLoopResult;
  cpu: CpuWindow;
}

/** Results of part 1 at one concurrency. */
export interface GatewayRow {
  concurrency: number;
  gateway: Measured;
  bare: Measured;
  bareCoalesced: Measured;
}

/** Results of part 1. */
export interface GatewayBenchResult {
  options: GatewayBenchOptions;
  rows: GatewayRow[];
  /** Mean bytes of one CloudEvent record value and of one request body. */
  meanRecordBytes: number;
  meanBodyBytes: number;
}

/**
 * Part 1: events/s the gateway accepts (`POST /v1/events`, closed loop, N keep-alive fetch
 * clients) next to a bare kafkajs producer configured like the gateway's, with the same records
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

  const rows: GatewayRow[] = [];
  for (const concurrency of o.concurrencies) {
    const measure = async (pids: Record<string, number>, send: (w: number) => Promise<number>) => {
      const window: { end?: () => CpuWindow } = {};
      const run = await closedLoop({
        concurrency,
        warmupMs: o.warmupMs,
        durationMs: o.durationMs,
        send,
        onMeasureStart: () => (window.end = cpuWindow(pids)),
      });
      return { run, cpu: window.end!() };
    };
    const bodyPool = new Pool(bodies);
    const gateway = await measure({ gateway: gw.pid, bench: process.pid }, () =>
      postEvents(gw.url, apiKey, bodyPool.next()),
    );
    log(`gateway  c=${concurrency}: ${Math.round(gateway.run.eventsPerSecond)} events/s`);
    const recordPool = new Pool(records);
    const bareRun = await measure({ bench: process.pid }, async () => {
      const batch = recordPool.next();
      await bare.send(topic, batch);
      return batch.length;
    });
    log(`bare     c=${concurrency}: ${Math.round(bareRun.run.eventsPerSecond)} events/s`);
    const coalesced = await measure({ bench: process.pid }, async () => {
      const batch = recordPool.next();
      await coalescer.submit(batch);
      return batch.length;
    });
    log(`coalesced c=${concurrency}: ${Math.round(coalesced.run.eventsPerSecond)} events/s`);
    rows.push({ concurrency, gateway, bare: bareRun, bareCoalesced: coalesced });
  }
  return { options: o, rows, meanRecordBytes, meanBodyBytes };
}
