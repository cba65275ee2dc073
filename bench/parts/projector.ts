import { Client } from 'pg';
import { KafkaBus } from '@agent-warden/bus';
import { bootstrapProject } from '@agent-warden/api';
import { TOPICS, type AgentEvent } from '@agent-warden/contracts';
import { createPrisma, identifyAgent } from '@agent-warden/db';
import { silentLogger } from '@agent-warden/observability';
import { decodeRecord, startProjection, writeBatch, type ProjectedEvent } from '@agent-warden/projector';
import type { Trajectory } from '../../scripts/replay/trajectories';
import { createTestDatabase } from '../../test/support/database';
import { randomSuffix } from '../../test/support/env';
import type { Cleanup } from '../lib/cleanup';
import { cpuWindow, type CpuWindow } from '../lib/cpu';
import type { BenchEnv } from '../lib/env';
import { chunks, bareInsert, toEventRows } from '../lib/pg-insert';
import { connectBareProducer, createTopics } from '../lib/kafka';
import { mean, sleep } from '../lib/stats';
import { tracingBus, type BatchTrace } from '../lib/trace';
import { agentsOf, EventStream, toWireRecords, type AgentIds } from '../lib/workload';

/** Settings of part 2. */
export interface ProjectorBenchOptions {
  records: number;
  partitions: number;
  /** Partitions the projector processes at once (`WARDEN_PROJECTOR_CONCURRENCY`). */
  concurrency: number;
  /** Longest wait for the projector to drain the topic, ms. */
  drainTimeoutMs: number;
}

/** Results of part 2. */
export interface ProjectorBenchResult {
  options: ProjectorBenchOptions;
  preload: { seconds: number; eventsPerSecond: number };
  projector: {
    /** Rows stored when the run ended (= records unless it timed out). */
    stored: number;
    /** From `startProjection` to the first batch handed to the handler (group join, first fetch). */
    joinSeconds: number;
    /** From the first batch to the last row stored. */
    drainSeconds: number;
    eventsPerSecond: number;
    cpu: CpuWindow;
    batches: number;
    meanBatch: number;
    maxBatch: number;
    /** Mean time of one handler call (decode + transaction + agent touch), ms. */
    meanHandlerMs: number;
    /** Share of each partition's busy span spent inside the handler (rest: fetch, commit, waits). */
    handlerShare: number;
  };
  bare: { batchSize: number; seconds: number; eventsPerSecond: number };
  /** Decomposition of the projector's cost, measured without Kafka on the same rows. */
  parts: {
    /** `decodeRecord` (JSON.parse + CloudEvent + AgentEvent zod parse + NUL strip), one core. */
    decodePerSecond: number;
    /** `writeBatch` (Prisma transaction) alone, one worker per partition, same batch size. */
    writeBatchPerSecond: number;
  };
}

async function countEvents(c: Client): Promise<number> {
  const r = await c.query<{ n: string }>('SELECT count(*) AS n FROM events');
  return Number(r.rows[0]?.n ?? 0);
}

/** Deterministic partition of a session (any stable split works: rows of a session stay together). */
function partitionOf(sessionId: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < sessionId.length; i += 1) h = (h * 31 + sessionId.charCodeAt(i)) | 0;
  return Math.abs(h) % partitions;
}

/**
 * Part 2: pre-loads `records` CloudEvents records into a fresh topic, then times the projector
 * (`startProjection` with a `KafkaBus`, in this process, nothing else running) draining them into a
 * fresh database, polling `SELECT count(*) FROM events`. Next to it: a bare multi-row INSERT of the
 * same rows into another fresh database (one connection per partition, the projector's mean
 * batch size), and a decomposition (decode alone, `writeBatch` alone).
 */
export async function benchProjector(
  env: BenchEnv,
  trajectories: Trajectory[],
  o: ProjectorBenchOptions,
  cleanup: Cleanup,
  log: (msg: string) => void,
): Promise<ProjectorBenchResult> {
  const [dbA, dbB] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  cleanup.add('drop projector database', () => dbA.drop());
  cleanup.add('drop bare-insert database', () => dbB.drop());

  const prisma = createPrisma(dbA.url);
  cleanup.add('disconnect projector prisma', () => prisma.$disconnect());
  const { projectId } = await bootstrapProject(prisma, { initApiKey: `aw_bench_${randomSuffix()}${randomSuffix()}${randomSuffix()}` });
  const agents = new Map<string, AgentIds>();
  for (const a of agentsOf(trajectories)) {
    const r = await identifyAgent(prisma, projectId, { agent: a, version: { version: 'bench' } });
    agents.set(a.key, { agentId: r.agentId, agentVersionId: r.agentVersionId });
  }
  const events: AgentEvent[] = new EventStream(trajectories, agents).take(o.records);
  const records = toWireRecords(projectId, events);

  // Pre-load the topic (bare producer, 500 records per send).
  const prefix = `bench${randomSuffix()}.`;
  await createTopics(env.kafkaBrokers, prefix, o.partitions);
  const producer = await connectBareProducer(env.kafkaBrokers, 'bench-preload');
  const p0 = performance.now();
  for (const chunk of chunks(records, 500)) await producer.send(prefix + TOPICS.agentEvents, chunk);
  const preloadSeconds = (performance.now() - p0) / 1000;
  await producer.disconnect();
  log(`pre-loaded ${o.records} records into ${prefix}${TOPICS.agentEvents} in ${preloadSeconds.toFixed(1)} s`);

  // The projector.
  const counter = new Client({ connectionString: dbA.url });
  await counter.connect();
  cleanup.add('close counter connection', () => counter.end());
  const traces: BatchTrace[] = [];
  const bus = new KafkaBus({
    brokers: env.kafkaBrokers,
    clientId: 'bench-projector',
    logger: silentLogger(),
    topicPrefix: prefix,
    partitionsConsumedConcurrently: o.concurrency,
  });
  cleanup.add('close projector bus', () => bus.close());
  const endCpu = cpuWindow({ bench: process.pid });
  const t0 = performance.now();
  const sub = await startProjection({
    db: prisma,
    bus: tracingBus(bus, traces),
    logger: silentLogger(),
    groupId: `bench-projector-${randomSuffix()}`,
  });
  let stored = 0;
  const deadline = t0 + o.drainTimeoutMs;
  while (stored < o.records && performance.now() < deadline) {
    await sleep(50);
    stored = await countEvents(counter);
  }
  const tDone = performance.now();
  const cpu = endCpu();
  await sub.stop();
  if (stored < o.records) log(`projector stored only ${stored} of ${o.records} within ${o.drainTimeoutMs} ms`);
  const firstBatch = Math.min(...traces.map((t) => t.startMs));
  const drainSeconds = (tDone - firstBatch) / 1000;
  const sizes = traces.map((t) => t.records);
  let busy = 0;
  let inHandler = 0;
  for (let p = 0; p < o.partitions; p += 1) {
    const ts = traces.filter((t) => t.partition === p);
    if (ts.length === 0) continue;
    busy += Math.max(...ts.map((t) => t.endMs)) - Math.min(...ts.map((t) => t.startMs));
    inHandler += ts.reduce((a, t) => a + (t.endMs - t.startMs), 0);
  }
  const meanBatch = mean(sizes);
  log(`projector: ${Math.round(stored / drainSeconds)} events/s, ${traces.length} batches of ${Math.round(meanBatch)} on average`);

  // The bare INSERT, same rows, grouped by partition, the projector's mean batch size.
  const rows = toEventRows(projectId, events);
  const groups: (typeof rows)[] = Array.from({ length: o.partitions }, () => []);
  rows.forEach((r, i) => groups[partitionOf(events[i]!.sessionId, o.partitions)]!.push(r));
  const batchSize = Math.max(1, Math.min(5000, Math.round(meanBatch)));
  const bareSeconds = await bareInsert(dbB.url, groups, batchSize);
  log(`bare INSERT: ${Math.round(o.records / bareSeconds)} events/s in batches of ${batchSize}`);

  // Decomposition without Kafka: decode alone, then writeBatch alone into the emptied database B.
  const d0 = performance.now();
  const decoded: ProjectedEvent[] = [];
  for (const [i, r] of records.entries()) {
    const d = decodeRecord({ key: r.key, value: r.value, partition: 0, offset: String(i) });
    if (d.kind === 'event') decoded.push({ projectId: d.projectId, event: d.event });
  }
  const decodeSeconds = (performance.now() - d0) / 1000;
  const truncate = new Client({ connectionString: dbB.url });
  await truncate.connect();
  await truncate.query('TRUNCATE events, sessions, runs');
  await truncate.end();
  const prismaB = createPrisma(dbB.url);
  cleanup.add('disconnect write-only prisma', () => prismaB.$disconnect());
  const byPartition: ProjectedEvent[][] = Array.from({ length: o.partitions }, () => []);
  for (const d of decoded) byPartition[partitionOf(d.event.sessionId, o.partitions)]!.push(d);
  const w0 = performance.now();
  await Promise.all(
    byPartition.map(async (list) => {
      for (const chunk of chunks(list, batchSize)) await writeBatch(prismaB, chunk, []);
    }),
  );
  const writeSeconds = (performance.now() - w0) / 1000;
  log(`decode alone: ${Math.round(o.records / decodeSeconds)} events/s; writeBatch alone: ${Math.round(o.records / writeSeconds)} events/s`);

  return {
    options: o,
    preload: { seconds: preloadSeconds, eventsPerSecond: o.records / preloadSeconds },
    projector: {
      stored,
      joinSeconds: (firstBatch - t0) / 1000,
      drainSeconds,
      eventsPerSecond: stored / drainSeconds,
      cpu,
      batches: traces.length,
      meanBatch,
      maxBatch: Math.max(...sizes),
      meanHandlerMs: mean(traces.map((t) => t.endMs - t.startMs)),
      handlerShare: inHandler / busy,
    },
    bare: { batchSize, seconds: bareSeconds, eventsPerSecond: o.records / bareSeconds },
    parts: {
      decodePerSecond: o.records / decodeSeconds,
      writeBatchPerSecond: o.records / writeSeconds,
    },
  };
}
