/**
 * The TypeScript client's side of `overhead.py`: the same measurements (`track`, `withTool` in
 * monitor mode with and without the guard, the bare keep-alive round trip) against the stub service
 * whose URL is given. Prints one JSON line. Run by `overhead.py`:
 *
 *   npx tsx clients/python/bench/overhead_ts.ts --url http://127.0.0.1:PORT [--track N] [--tool N]
 */
import { parseArgs } from 'node:util';
import { WardenClient, silentLogger } from '@agent-warden/client';

const API_KEY = 'bench-key';

interface Summary {
  n: number;
  mean_us: number;
  p50_us: number;
  p99_us: number;
}

function summary(samplesNs: bigint[]): Summary {
  const s = samplesNs.map((x) => Number(x) / 1000).sort((a, b) => a - b);
  const pick = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    n: s.length,
    mean_us: round(s.reduce((a, b) => a + b, 0) / s.length),
    p50_us: round(pick(0.5)),
    p99_us: round(pick(0.99)),
  };
}

const payload = (i: number) => ({ key: 'order:4412', n: i, tags: ['a', 'b'] });

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      track: { type: 'string', default: '20000' },
      tool: { type: 'string', default: '2000' },
    },
  });
  const url = values.url!;
  const nTrack = Number(values.track);
  const nTool = Number(values.tool);
  const out: Record<string, unknown> = {};

  for (const [label, enabled] of [
    ['track', true],
    ['track_disabled', false],
  ] as const) {
    const c = new WardenClient({
      enabled,
      baseUrl: url,
      apiKey: API_KEY,
      agent: { key: 'bench' },
      maxQueueSize: 1_000_000,
      logger: silentLogger,
    });
    await c.ready();
    for (let i = 0; i < 2000; i++) c.track('warm', payload(i));
    await c.flush();
    const samples: bigint[] = [];
    const tAll = process.hrtime.bigint();
    for (let i = 0; i < nTrack; i++) {
      const t0 = process.hrtime.bigint();
      c.track('cache.hit', payload(i));
      samples.push(process.hrtime.bigint() - t0);
      // Let the flush loop (same thread) run now and then, as an agent's awaits would.
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
    const total = Number(process.hrtime.bigint() - tAll);
    const tFlush = performance.now();
    await c.flush();
    const flushMs = performance.now() - tFlush;
    out[label] = {
      ...summary(samples),
      throughput_per_s: Math.round(nTrack / (total / 1e9)),
      final_flush_ms: Math.round(flushMs * 10) / 10,
      dropped: c.stats().dropped,
    };
    await c.shutdown();
  }

  const c = new WardenClient({
    baseUrl: url,
    apiKey: API_KEY,
    agent: { key: 'bench' },
    mode: 'monitor',
    maxQueueSize: 1_000_000,
    logger: silentLogger,
  });
  await c.ready();
  for (const [variant, guard, n] of [
    ['with_tool_monitor', true, nTool],
    ['with_tool_no_guard', false, nTrack],
  ] as const) {
    for (let i = 0; i < 200; i++)
      await c.withTool({ name: 'search', arguments: { q: i }, guard }, () => ({ hits: i }));
    const samples: bigint[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await c.withTool({ name: 'search', arguments: { q: i }, guard }, () => ({ hits: i }));
      samples.push(process.hrtime.bigint() - t0);
    }
    out[variant] = summary(samples);
    await c.flush();
  }
  await c.shutdown();

  const body = JSON.stringify({
    agentId: '0190a5f1-0000-4000-8000-000000000001',
    agentVersionId: '0190a5f1-0000-4000-8000-000000000002',
    sessionId: '01970f3a-1000-7000-8000-000000000001',
    toolCallId: '01970f3a-1000-7000-8000-000000000003',
    mode: 'monitor',
    tool: { name: 'search' },
    action: { name: 'search' },
    arguments: { q: 1 },
    dryRun: false,
  });
  const samples: bigint[] = [];
  for (let i = 0; i < 200 + nTool; i++) {
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${url}/v1/guardrails/evaluate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body,
    });
    await res.json();
    if (i >= 200) samples.push(process.hrtime.bigint() - t0);
  }
  out.bare_round_trip = summary(samples);
  out.runtime = `Node ${process.versions.node}`;
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
