import { Client } from 'pg';
import { bootstrapProject } from '@agent-warden/api';
import { TOPICS, type AgentEvent } from '@agent-warden/contracts';
import { createPrisma, identifyAgent, type PrismaClient } from '@agent-warden/db';
import { decodeRecord, writeBatch, type ProjectedEvent } from '@agent-warden/projector';
import type { Trajectory } from '../../scripts/replay/trajectories';
import { createTestDatabase } from '../../test/support/database';
import { randomSuffix } from '../../test/support/env';
import type { Cleanup } from '../lib/cleanup';
import { cpuWindow, type CpuWindow } from '../lib/cpu';
import { drainTopic, type DrainResult } from '../lib/drain';
import type { BenchEnv } from '../lib/env';
import { connectBareProducer, createTopics, deleteTopics } from '../lib/kafka';
import { bareInsert, chunks, copyEventOwners, toEventRows } from '../lib/pg-insert';
import { profileWhile, type ProfileSummary } from '../lib/profile';
import { agentsOf, EventStream, toWireRecords, type AgentIds, type WireRecord } from '../lib/workload';

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
  /** The projector as shipped draining the pre-loaded topic. */
  projector: DrainResult;
  /** The bare INSERT, with the CPU of this process and of the machine while it ran (PostgreSQL's share is the machine's less this process's). */
  bare: { batchSize: number; seconds: number; eventsPerSecond: number; cpu: CpuWindow };
  /** The projector's two steps, each alone, without Kafka, on the same records. */
  steps: {
    /** `decodeRecord` (JSON.parse + CloudEvent + AgentEvent zod parse), one core. */
    decodePerSecond: number;
    /** `writeBatch` alone, one worker per partition, the projector's mean batch size. */
    writeBatchPerSecond: number;
  };
  /** CPU profile of this process during "`writeBatch` alone". */
  writeProfile: ProfileSummary;
}

async function truncate(url: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    // CASCADE: session_intelligence (and its recommendations) reference sessions; the bench writes none.
    await c.query('TRUNCATE events, sessions, runs CASCADE');
  } finally {
    await c.end();
  }
}

/** Deterministic partition of a session (any stable split works: rows of a session stay together). */
function partitionOf(sessionId: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < sessionId.length; i += 1) h = (h * 31 + sessionId.charCodeAt(i)) | 0;
  return Math.abs(h) % partitions;
}

/** Splits `items` into `partitions` lists by the session each belongs to. */
function byPartition<T>(items: T[], sessionOf: (t: T) => string, partitions: number): T[][] {
  const out: T[][] = Array.from({ length: partitions }, () => []);
  for (const t of items) out[partitionOf(sessionOf(t), partitions)]!.push(t);
  return out;
}

/**
 * Decode alone (one core), then `writeBatch` alone (profiled; one worker per partition, batches of
 * `batchSize`) into the emptied database at `url`: the projector's cost split without Kafka.
 */
async function timeSteps(
  records: WireRecord[],
  url: string,
  db: PrismaClient,
  partitions: number,
  batchSize: number,
): Promise<Pick<ProjectorBenchResult, 'steps' | 'writeProfile'>> {
  const d0 = performance.now();
  const decoded: ProjectedEvent[] = [];
  for (const [i, r] of records.entries()) {
    const d = decodeRecord({ key: r.key, value: r.value, partition: 0, offset: String(i) });
    if (d.kind === 'event') decoded.push({ projectId: d.projectId, event: d.event });
  }
  const decodeSeconds = (performance.now() - d0) / 1000;
  await truncate(url);
  const lists = byPartition(decoded, (d) => d.event.sessionId, partitions);
  const { result: writeSeconds, profile } = await profileWhile(async () => {
    const w0 = performance.now();
    await Promise.all(
      lists.map(async (list) => {
        for (const chunk of chunks(list, batchSize)) await writeBatch(db, chunk, []);
      }),
    );
    return (performance.now() - w0) / 1000;
  });
  return {
    steps: {
      decodePerSecond: records.length / decodeSeconds,
      writeBatchPerSecond: decoded.length / writeSeconds,
    },
    writeProfile: profile,
  };
}

/**
 * Part 2: pre-loads `records` CloudEvents records into a fresh topic, then times the projector as
 * shipped ({@link drainTopic}: `startProjection` with a `KafkaBus`, in this process, nothing else
 * running) draining them into a fresh database. Next to it: a bare multi-row INSERT of the same
 * rows into another fresh database (one connection per partition, the projector's mean batch
 * size), and each of the projector's steps alone (decode, `writeBatch`).
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
  cleanup.add('delete the pre-loaded topics', () => deleteTopics(env.kafkaBrokers, prefix));
  await createTopics(env.kafkaBrokers, prefix, o.partitions);
  const producer = await connectBareProducer(env.kafkaBrokers, 'bench-preload');
  const p0 = performance.now();
  for (const chunk of chunks(records, 500)) await producer.send(prefix + TOPICS.agentEvents, chunk);
  const preloadSeconds = (performance.now() - p0) / 1000;
  await producer.disconnect();
  log(
    `pre-loaded ${o.records} records into ${prefix}${TOPICS.agentEvents} in ${preloadSeconds.toFixed(1)} s`,
  );

  const projector = await drainTopic(
    {
      env,
      prefix,
      url: dbA.url,
      db: prisma,
      records: o.records,
      partitions: o.partitions,
      concurrency: o.concurrency,
      timeoutMs: o.drainTimeoutMs,
    },
    cleanup,
  );
  log(
    `projector: ${Math.round(projector.eventsPerSecond)} events/s, ${projector.batches} batches of ${Math.round(projector.meanBatch)} on average`,
  );

  // The bare INSERT: same rows, grouped by partition, the projector's mean batch size (at most
  // 5,000 rows: 11 parameters a row stay below PostgreSQL's 65,535).
  const batchSize = Math.max(1, Math.min(5000, Math.round(projector.meanBatch)));
  const groups = byPartition(events, (e) => e.sessionId, o.partitions).map((list) =>
    toEventRows(projectId, list),
  );
  await copyEventOwners(dbA.url, dbB.url);
  const endBareCpu = cpuWindow({ bench: process.pid });
  const bareSeconds = await bareInsert(dbB.url, groups, batchSize);
  const bareCpu = endBareCpu();
  log(`bare INSERT: ${Math.round(o.records / bareSeconds)} events/s in batches of ${batchSize}`);

  const steps = await timeSteps(records, dbA.url, prisma, o.partitions, batchSize);
  log(
    `decode alone: ${Math.round(steps.steps.decodePerSecond)} events/s; writeBatch alone: ${Math.round(steps.steps.writeBatchPerSecond)} events/s`,
  );

  return {
    options: o,
    preload: { seconds: preloadSeconds, eventsPerSecond: o.records / preloadSeconds },
    projector,
    bare: { batchSize, seconds: bareSeconds, eventsPerSecond: o.records / bareSeconds, cpu: bareCpu },
    ...steps,
  };
}
