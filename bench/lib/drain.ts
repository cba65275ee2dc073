import { Client } from 'pg';
import { KafkaBus } from '@agent-warden/bus';
import type { PrismaClient } from '@agent-warden/db';
import { silentLogger } from '@agent-warden/observability';
import { startProjection } from '@agent-warden/projector';
import { randomSuffix } from '../../test/support/env';
import type { Cleanup } from './cleanup';
import { cpuWindow, type CpuWindow } from './cpu';
import { startProfiler, type ProfileSummary } from './profile';
import type { BenchEnv } from './env';
import { mean, sleep } from './stats';
import { tracingBus, type BatchTrace } from './trace';

/** One timed drain of a pre-loaded topic by the projector. */
export interface DrainResult {
  /** Rows stored when the run ended (= the records unless it timed out). */
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
  /** CPU profile of this process during the drain, with `BENCH_PROFILE_DRAIN=1` only (it slows the drain). */
  profile?: ProfileSummary;
}

/** What {@link drainTopic} runs against. */
export interface DrainTarget {
  env: BenchEnv;
  /** Topic prefix of the pre-loaded topics. */
  prefix: string;
  /** Database the projector writes into (`db`) and whose `events` rows are counted (`url`). */
  url: string;
  db: PrismaClient;
  records: number;
  partitions: number;
  /** `partitionsConsumedConcurrently` of the bus (`WARDEN_PROJECTOR_CONCURRENCY`). */
  concurrency: number;
  timeoutMs: number;
}

async function countEvents(c: Client): Promise<number> {
  const r = await c.query<{ n: string }>('SELECT count(*) AS n FROM events');
  return Number(r.rows[0]?.n ?? 0);
}

/** Handler time ÷ busy span (first batch start → last batch end), summed over partitions. */
function handlerShare(traces: BatchTrace[], partitions: number): number {
  let busy = 0;
  let inHandler = 0;
  for (let p = 0; p < partitions; p += 1) {
    const ts = traces.filter((t) => t.partition === p);
    if (ts.length === 0) continue;
    busy += Math.max(...ts.map((t) => t.endMs)) - Math.min(...ts.map((t) => t.startMs));
    inHandler += ts.reduce((a, t) => a + (t.endMs - t.startMs), 0);
  }
  return inHandler / busy;
}

/**
 * Runs the projector as shipped — `startProjection` of `@agent-warden/projector` with a `KafkaBus`
 * (its own consumer settings), a fresh consumer group — in this process on the topics of
 * `t.prefix`, and waits until `t.records` rows are in the `events` table at `t.url` (polled every
 * 50 ms) or the timeout passes; then stops it. The bus is wrapped only to record each batch's size
 * and handler time. With `BENCH_PROFILE_DRAIN=1` in the environment, this process's CPU is profiled
 * during the drain (`profile`; the profiler slows the drain, so its figures are not the ratio's).
 */
export async function drainTopic(t: DrainTarget, cleanup: Cleanup): Promise<DrainResult> {
  const counter = new Client({ connectionString: t.url });
  await counter.connect();
  const traces: BatchTrace[] = [];
  const bus = new KafkaBus({
    brokers: t.env.kafkaBrokers,
    clientId: 'bench-projector',
    logger: silentLogger(),
    topicPrefix: t.prefix,
    partitionsConsumedConcurrently: t.concurrency,
  });
  cleanup.add('close projector bus', () => bus.close());
  try {
    const stopProfiler = process.env.BENCH_PROFILE_DRAIN === '1' ? await startProfiler() : undefined;
    const endCpu = cpuWindow({ bench: process.pid });
    const t0 = performance.now();
    const sub = await startProjection({
      db: t.db,
      bus: tracingBus(bus, traces),
      logger: silentLogger(),
      groupId: `bench-projector-${randomSuffix()}`,
    });
    let stored = 0;
    const deadline = t0 + t.timeoutMs;
    while (stored < t.records && performance.now() < deadline) {
      await sleep(50);
      stored = await countEvents(counter);
    }
    const tDone = performance.now();
    const cpu = endCpu();
    const profile = await stopProfiler?.();
    await sub.stop();
    const firstBatch = Math.min(...traces.map((x) => x.startMs));
    const sizes = traces.map((x) => x.records);
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
      meanHandlerMs: mean(traces.map((x) => x.endMs - x.startMs)),
      handlerShare: handlerShare(traces, t.partitions),
      ...(profile ? { profile } : {}),
    };
  } finally {
    await counter.end();
    await bus.close();
  }
}
