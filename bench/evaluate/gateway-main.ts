/**
 * Child-process entry of `bench:evaluate`: the real gateway (`start()` of `@agent-warden/gateway`)
 * with one bench-only route mounted on the same server, `POST /bench/bare` (`express.json()` and
 * `{ok:true}`), the baseline. Prints `{"ready":true,"url":…}` on stdout; stops on SIGTERM. Over the
 * IPC channel it answers `profile-start` / `profile-stop` (CPU profile summary of this process).
 */
import v8 from 'node:v8';
import express, { Router } from 'express';
import { parseEnv } from '@agent-warden/config';
import { GatewayConfig, start } from '@agent-warden/gateway';
import { createLogger } from '@agent-warden/observability';
import { startAllocationProfile } from '../lib/alloc-profile';
import { answerProfileRequests } from '../lib/profile';
import { startStallMonitor } from '../lib/stall-monitor';

async function main(): Promise<void> {
  // BENCH_V8_FLAGS (e.g. `--trace-gc`): V8 flags for diagnosing the gateway in the bench.
  if (process.env.BENCH_V8_FLAGS) v8.setFlagsFromString(process.env.BENCH_V8_FLAGS);
  const config = parseEnv(GatewayConfig);
  const logger = createLogger({ name: 'bench-gateway', level: config.LOG_LEVEL });
  const bare = Router().post('/bench/bare', express.json(), (_req, res) => {
    res.json({ ok: true });
  });
  const gw = await start(config, logger, [bare]);
  // BENCH_STALLS=1: print the event-loop stalls (and the GC pauses in them) on stderr at exit.
  const stopStalls = process.env.BENCH_STALLS === '1' ? startStallMonitor() : undefined;
  // BENCH_ALLOC_PROFILE=<file>: sampling allocation profile of the whole run, written at exit
  // (BENCH_ALLOC_LIVE=1: only the objects the heap still holds when it stops; BENCH_ALLOC_INTERVAL:
  // bytes between samples, default 16384).
  const allocFile = process.env.BENCH_ALLOC_PROFILE;
  const stopAlloc = allocFile
    ? await startAllocationProfile(
        allocFile,
        Number(process.env.BENCH_ALLOC_INTERVAL) || 16_384,
        process.env.BENCH_ALLOC_LIVE === '1',
      )
    : undefined;
  // BENCH_ALLOC_STOP_MS=<ms>: stop and write that profile this long after the gateway is ready
  // (in the middle of the load) instead of at exit.
  const stopAfterMs = Number(process.env.BENCH_ALLOC_STOP_MS);
  if (stopAlloc && stopAfterMs > 0) setTimeout(() => void stopAlloc(), stopAfterMs).unref();
  // BENCH_HEAP_SNAPSHOTS=<ms>,<ms>…: a heap snapshot (`v8.writeHeapSnapshot`, after a full GC, so
  // only what is still reachable) this long after the gateway is ready, in the working directory.
  for (const ms of (process.env.BENCH_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number))
    setTimeout(() => {
      const file = v8.writeHeapSnapshot(`bench-gateway-${ms}.heapsnapshot`);
      process.stderr.write(`heap snapshot ${file}\n`);
    }, ms).unref();
  process.stdout.write(JSON.stringify({ ready: true, url: gw.url }) + '\n');
  answerProfileRequests();
  process.once('SIGTERM', () => {
    if (stopStalls) process.stderr.write(`stalls ${JSON.stringify(stopStalls())}\n`);
    Promise.resolve(stopAfterMs > 0 ? undefined : stopAlloc?.())
      .then(() => gw.stop())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}

main().catch((err) => {
  process.stderr.write(`bench gateway failed to start: ${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
