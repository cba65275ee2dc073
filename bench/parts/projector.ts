import { Client } from 'pg';
import type { ConsumerConfig, Kafka } from 'kafkajs';
import { KafkaBus } from '@agent-warden/bus';
import { bootstrapProject } from '@agent-warden/api';
import { TOPICS, type AgentEvent } from '@agent-warden/contracts';
import { createPrisma, identifyAgent, type PrismaClient } from '@agent-warden/db';
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
import { profileWhile, type ProfileSummary } from '../lib/profile';
import { withRawEventInsert } from '../lib/raw-event-insert';
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
  /** Records used for the decomposition without Kafka (decode alone, writeBatch alone). */
  decomposeRecords: number;
}

/** One timed drain of the pre-loaded topic by the projector. */
export interface DrainResult {
  /** Rows stored when the run ended (= records unless it timed out). */
  stored: number;
  /** From `startProjection` to the first batch handed to the handler (group join, first fetch). */
  joinSeconds: number;
  /** From the first batch to the last row stored. */
  drainSeconds: number;
  eventsPerSecond: number;
  /** CPU of this process (projector + 50 ms count polling) and of the machine. */
  cpu: CpuWindow;
  batches: number;
  meanBatch: number;
  maxBatch: number;
  /** Mean time of one handler call (decode + transaction + agent touch), ms. */
  meanHandlerMs: number;
  /** Share of each partition's busy span spent inside the handler (rest: fetch, commit, waits). */
  handlerShare: number;
}

/** Results of part 2. */
export interface ProjectorBenchResult {
  options: ProjectorBenchOptions;
  preload: { seconds: number; eventsPerSecond: number };
  projector: DrainResult;
  bare: { batchSize: number; seconds: number; eventsPerSecond: number };
  /** Decomposition of the projector's cost, measured without Kafka on the first records. */
  parts: {
    /** `decodeRecord` (JSON.parse + CloudEvent + AgentEvent zod parse + NUL strip), one core. */
    decodePerSecond: number;
    /** `writeBatch` (Prisma transaction) alone, one worker per partition, same batch size. */
    writeBatchPerSecond: number;
    /** The same with the events insert as one raw statement ({@link withRawEventInsert}). */
    rawWritePerSecond: number;
  };
  /** CPU profile of this process during "writeBatch alone" (as shipped). */
  writeProfile: ProfileSummary;
  /** The projector draining the same topic with the raw events insert (prototype). */
  prototype: DrainResult;
  /** The same with kafkajs fetching up to {@link BIG_FETCH} bytes per partition instead of 1 MiB. */
  prototypeBigFetch: DrainResult;
  /** CPU profile of this process during a third drain of the prototype (not one of the timed ones). */
  prototypeProfile: ProfileSummary;
}

async function truncate(url: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('TRUNCATE events, sessions, runs');
  } finally {
    await c.end();
  }
}

/**
 * Starts the projection (`startProjection`, a fresh consumer group, a `KafkaBus` on the topics of
 * `prefix`) writing through `db`, and waits until `records` rows are in the `events` table at
 * `url` (polled every 50 ms) or the timeout passes; then stops it.
 */
/** `maxBytesPerPartition` of the big-fetch prototype (kafkajs default: 1 MiB). */
export const BIG_FETCH = 4 * 1024 * 1024;

/**
 * Makes the consumers `bus` creates use `overrides` on top of the options `KafkaBus.subscribe`
 * sets. A prototype's hack on a private field (the bus has no option for it): tells what a change
 * of libs/bus/src/kafka.ts would give, without editing it.
 */
function overrideConsumerOptions(bus: KafkaBus, overrides: Partial<ConsumerConfig>): void {
  const kafka = (bus as unknown as { kafka: Kafka }).kafka;
  const consumer = kafka.consumer.bind(kafka);
  kafka.consumer = (config: ConsumerConfig) => consumer({ ...config, ...overrides });
}

async function drain(
  env: BenchEnv,
  prefix: string,
  url: string,
  db: PrismaClient,
  o: ProjectorBenchOptions,
  cleanup: Cleanup,
  consumerOverrides?: Partial<ConsumerConfig>,
): Promise<DrainResult> {
  const counter = new Client({ connectionString: url });
  await counter.connect();
  const traces: BatchTrace[] = [];
  const bus = new KafkaBus({
    brokers: env.kafkaBrokers,
    clientId: 'bench-projector',
    logger: silentLogger(),
    topicPrefix: prefix,
    partitionsConsumedConcurrently: o.concurrency,
  });
  cleanup.add('close projector bus', () => bus.close());
  if (consumerOverrides) overrideConsumerOptions(bus, consumerOverrides);
  try {
    const endCpu = cpuWindow({ bench: process.pid });
    const t0 = performance.now();
    const sub = await startProjection({
      db,
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
    const firstBatch = Math.min(...traces.map((t) => t.startMs));
    const sizes = traces.map((t) => t.records);
    let busy = 0;
    let inHandler = 0;
    for (let p = 0; p < o.partitions; p += 1) {
      const ts = traces.filter((t) => t.partition === p);
      if (ts.length === 0) continue;
      busy += Math.max(...ts.map((t) => t.endMs)) - Math.min(...ts.map((t) => t.startMs));
      inHandler += ts.reduce((a, t) => a + (t.endMs - t.startMs), 0);
    }
    const drainSeconds = (tDone - firstBatch) / 1000;
    return {
      stored,
      joinSeconds: (firstBatch - t0) / 1000,
      drainSeconds,
      eventsPerSecond: stored / drainSeconds,
      cpu,
      batches: traces.length,
      meanBatch: mean(sizes),
      maxBatch: Math.max(...sizes),
      meanHandlerMs: mean(traces.map((t) => t.endMs - t.startMs)),
      handlerShare: inHandler / busy,
    };
  } finally {
    await counter.end();
    await bus.close();
  }
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
 * batch size), a decomposition (decode alone, `writeBatch` alone) and prototypes of faster writes
 * (the real projector with the events insert as one raw statement, then also with bigger fetches).
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
  const { projectId } = await bootstrapProject(prisma, {
    initApiKey: `aw_bench_${randomSuffix()}${randomSuffix()}${randomSuffix()}`,
  });
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
  log(
    `pre-loaded ${o.records} records into ${prefix}${TOPICS.agentEvents} in ${preloadSeconds.toFixed(1)} s`,
  );

  const topic = prefix + TOPICS.agentEvents;

  // The projector, as shipped.
  const real = await drain(env, prefix, dbA.url, prisma, o, cleanup);
  log(
    `projector: ${Math.round(real.eventsPerSecond)} events/s, ${real.batches} batches of ${Math.round(real.meanBatch)} on average`,
  );

  // The bare INSERT, same rows, grouped by partition, the projector's mean batch size.
  const rows = toEventRows(projectId, events);
  const groups: (typeof rows)[] = Array.from({ length: o.partitions }, () => []);
  rows.forEach((r, i) => groups[partitionOf(events[i]!.sessionId, o.partitions)]!.push(r));
  const batchSize = Math.max(1, Math.min(5000, Math.round(real.meanBatch)));
  const bareSeconds = await bareInsert(dbB.url, groups, batchSize);
  log(`bare INSERT: ${Math.round(o.records / bareSeconds)} events/s in batches of ${batchSize}`);

  // Decomposition without Kafka, on the first `decomposeRecords` records: decode alone, then
  // writeBatch alone (as shipped, then with the raw events insert) into the emptied database B.
  const sample = records.slice(0, o.decomposeRecords);
  const d0 = performance.now();
  const decoded: ProjectedEvent[] = [];
  for (const [i, r] of sample.entries()) {
    const d = decodeRecord({ key: r.key, value: r.value, partition: 0, offset: String(i) });
    if (d.kind === 'event') decoded.push({ projectId: d.projectId, event: d.event });
  }
  const decodeSeconds = (performance.now() - d0) / 1000;
  const prismaB = createPrisma(dbB.url);
  cleanup.add('disconnect database B prisma', () => prismaB.$disconnect());
  const byPartition: ProjectedEvent[][] = Array.from({ length: o.partitions }, () => []);
  for (const d of decoded) byPartition[partitionOf(d.event.sessionId, o.partitions)]!.push(d);
  const writeAlone = async (db: PrismaClient) => {
    await truncate(dbB.url);
    const w0 = performance.now();
    await Promise.all(
      byPartition.map(async (list) => {
        for (const chunk of chunks(list, batchSize)) await writeBatch(db, chunk, []);
      }),
    );
    return sample.length / ((performance.now() - w0) / 1000);
  };
  const { result: writeBatchPerSecond, profile: writeProfile } = await profileWhile(() =>
    writeAlone(prismaB),
  );
  const rawWritePerSecond = await writeAlone(withRawEventInsert(prismaB));
  log(
    `decode alone: ${Math.round(sample.length / decodeSeconds)} events/s; writeBatch alone: ${Math.round(writeBatchPerSecond)} events/s; with raw events insert: ${Math.round(rawWritePerSecond)} events/s`,
  );

  // The projector again, same topic (a new consumer group each time), with the raw events insert,
  // into the emptied database B: timed, timed with bigger fetches, then once more while profiled.
  const fast = withRawEventInsert(prismaB);
  await truncate(dbB.url);
  const prototype = await drain(env, prefix, dbB.url, fast, o, cleanup);
  log(`projector with raw events insert: ${Math.round(prototype.eventsPerSecond)} events/s (topic ${topic})`);
  await truncate(dbB.url);
  const prototypeBigFetch = await drain(env, prefix, dbB.url, fast, o, cleanup, {
    maxBytesPerPartition: BIG_FETCH,
    maxBytes: 4 * BIG_FETCH,
  });
  log(`  … and ${BIG_FETCH >> 20} MiB fetches: ${Math.round(prototypeBigFetch.eventsPerSecond)} events/s`);
  await truncate(dbB.url);
  const { profile: prototypeProfile } = await profileWhile(() =>
    drain(env, prefix, dbB.url, fast, o, cleanup),
  );

  return {
    options: o,
    preload: { seconds: preloadSeconds, eventsPerSecond: o.records / preloadSeconds },
    projector: real,
    bare: { batchSize, seconds: bareSeconds, eventsPerSecond: o.records / bareSeconds },
    parts: {
      decodePerSecond: sample.length / decodeSeconds,
      writeBatchPerSecond,
      rawWritePerSecond,
    },
    writeProfile,
    prototype,
    prototypeBigFetch,
    prototypeProfile,
  };
}
