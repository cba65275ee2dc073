import { WardenClient, silentLogger } from '../../clients/typescript/src';
import { fakeServiceFetch } from './fake-api';
import type { Workload } from './workload';

/** Events the run holds before the measured calls. */
export const RUN_EVENTS = 10_000;

/** One client's figures in one round. */
export interface RoundFigures {
  provenance: boolean;
  /** Tool results recorded while filling the run. */
  toolResults: number;
  /** Events made while filling the run. */
  events: number;
  /** Mean wall time of one unguarded withTool while filling (record of its result included), µs. */
  fillUsPerTool: number;
  /** Mean wall time of one guarded withTool after the fill (match + guard + record), µs. */
  guardedUsPerCall: number;
  /** Median of the same, µs. */
  guardedP50Us: number;
  /** 99th percentile of the same, µs. */
  guardedP99Us: number;
  /** Mean time of `provenanceOf` alone on the same arguments, µs (0 when off). */
  matchUsPerCall: number;
  /**
   * Mean time of `provenanceOf` on the heaviest arguments the bounds allow: 64 leaves, one of them
   * 4,096 characters of tool output (17 segments), µs (0 when off).
   */
  heavyMatchUs: number;
  /** What the tracker held at the end of the fill. */
  held: { sources: number; chars: number; bytes: number };
  /** Argument leaves described per guarded call, mean. */
  leavesPerCall: number;
}

/**
 * Fills one run with {@link RUN_EVENTS} events replayed from the shared data (user and assistant
 * messages, unguarded `withTool` calls returning the real results — about 5,000), then times
 * `calls` guarded `withTool` calls with real arguments and results, in the same run, against the
 * in-process fake service.
 */
export async function measureRound(
  work: Workload,
  provenance: boolean,
  calls: number,
): Promise<RoundFigures> {
  const client = new WardenClient({
    baseUrl: 'http://bench.invalid',
    apiKey: 'bench',
    agent: { key: 'bench-provenance' },
    fetch: fakeServiceFetch(),
    logger: silentLogger,
    flushIntervalMs: 3_600_000,
    maxQueueSize: 100_000,
    maxBatchSize: 500,
    provenance,
  });
  await client.ready();
  const firstUser = work.messages.find((m) => m.role === 'user')?.content ?? '';
  const out = await client.withRun({ name: 'bench', inputSummary: firstUser }, async (run) => {
    let events = 2; // session.started, run.started
    let toolResults = 0;
    let fillMs = 0;
    let m = 0;
    let t = 0;
    while (events < RUN_EVENTS) {
      // A user or assistant message every 8 tool calls (tool calls are two events): about 4,700 tool results.
      if (t % 8 === 0) {
        const msg = work.messages[m % work.messages.length]!;
        run.trackMessage(msg);
        m += 1;
        events += 1;
        if (events >= RUN_EVENTS) break;
      }
      const sample = work.tools[t % work.tools.length]!;
      t += 1;
      const t0 = performance.now();
      await run.withTool(
        { name: sample.tool, arguments: sample.arguments, guard: false },
        () => sample.result,
      );
      fillMs += performance.now() - t0;
      toolResults += 1;
      events += 2;
    }
    const held = client.provenanceStats();
    const times: number[] = [];
    let matchMs = 0;
    let leaves = 0;
    for (let i = 0; i < calls; i += 1) {
      const sample = work.guarded[(i * 7919) % work.guarded.length]!;
      const t0 = performance.now();
      await run.withTool({ name: sample.tool, arguments: sample.arguments }, () => sample.result);
      times.push(performance.now() - t0);
      if (provenance) {
        const t1 = performance.now();
        const p = run.provenanceOf(sample.arguments);
        matchMs += performance.now() - t1;
        leaves += p?.arguments.length ?? 0;
      }
    }
    times.sort((a, b) => a - b);
    let heavyMs = 0;
    if (provenance) {
      const heavy = heavyArguments(work);
      const t1 = performance.now();
      for (let i = 0; i < HEAVY_CALLS; i += 1) run.provenanceOf(heavy);
      heavyMs = (performance.now() - t1) / HEAVY_CALLS;
    }
    return {
      provenance,
      toolResults,
      events,
      fillUsPerTool: (fillMs / toolResults) * 1000,
      guardedUsPerCall: (times.reduce((a, b) => a + b, 0) / calls) * 1000,
      guardedP50Us: (times[Math.floor(calls / 2)] ?? 0) * 1000,
      guardedP99Us: (times[Math.floor(calls * 0.99)] ?? 0) * 1000,
      heavyMatchUs: heavyMs * 1000,
      matchUsPerCall: (matchMs / calls) * 1000,
      held: { sources: held.sources, chars: held.chars, bytes: held.bytes },
      leavesPerCall: leaves / calls,
    };
  });
  await client.shutdown();
  return out;
}

const HEAVY_CALLS = 50;

/** 63 short string arguments of the data and one body of 4,096 characters of tool output. */
function heavyArguments(work: Workload): Record<string, unknown> {
  const shorts: string[] = [];
  for (const t of work.guarded) {
    for (const v of Object.values(t.arguments)) if (typeof v === 'string' && v.length <= 64) shorts.push(v);
    if (shorts.length >= 63) break;
  }
  let body = '';
  for (let i = work.tools.length - 1; i >= 0 && body.length < 4096; i -= 1)
    body += `${work.tools[i]!.result}\n`;
  return { to: shorts.slice(0, 63), body: body.slice(0, 4096) };
}
