/**
 * `npm run bench:mcp` — what the MCP guard proxy adds to one `tools/call` (issue 16: p50/p99
 * beside a direct call). A real MCP client (the SDK's `Client` over stdio) calls `read_text_file`
 * of the real `@modelcontextprotocol/server-filesystem` on a small file, one call at a time, in
 * three set-ups: directly; through `mcp-guard` with `WARDEN_ENABLED=false` (the relay alone); and
 * through `mcp-guard` in enforce mode against Agent Warden (the gateway and api in this process on
 * the real PostgreSQL and Kafka, as the integration tests start them: test/support/stack.ts), where
 * each call is one guard evaluation (allowed) and its events. Rounds rotate the set-ups after a
 * warm-up. Writes its section of docs/benchmarks.md unless `--no-write`. Run it on a quiet machine:
 * the figures are latencies.
 *
 *   source .infra/env && npm run bench:mcp [-- --calls 500] [-- --rounds 3] [-- --no-write]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestStack } from '../test/support/stack';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, ROOT } from './lib/env';
import { fmtMs, median, percentile } from './lib/stats';

const PROXY = path.join(ROOT, 'clients/mcp-guard/bin/mcp-guard.mjs');
const SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js', {
  paths: [path.join(ROOT, 'clients/mcp-guard')],
});
const WARMUP = 50;

type Setup = 'direct' | 'relay' | 'guarded';
const SETUPS: Setup[] = ['direct', 'relay', 'guarded'];
const LABEL: Record<Setup, string> = {
  direct: 'direct (client → server)',
  relay: 'through mcp-guard, Agent Warden off (relay only)',
  guarded: 'through mcp-guard, enforce (guard + events)',
};

/** The installed SDK's version (its package.json is not among the files it exports). */
function sdkVersion(): string {
  const file = path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Connects an SDK client to the server, directly or through the proxy with `env`. */
async function connect(setup: Setup, dir: string, warden?: { url: string; apiKey: string }): Promise<Client> {
  const server = [process.execPath, SERVER, dir];
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  let args: string[];
  if (setup === 'direct') args = server.slice(1);
  else {
    args = [PROXY, '--log-level', 'error', '--mode', 'enforce', '--', ...server];
    if (setup === 'relay') env.WARDEN_ENABLED = 'false';
    else Object.assign(env, { WARDEN_URL: warden!.url, WARDEN_API_KEY: warden!.apiKey });
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env,
    cwd: ROOT,
    stderr: 'ignore',
  });
  const client = new Client({ name: `bench-${setup}`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Latencies (ms) of `n` sequential `read_text_file` calls. */
async function measure(client: Client, file: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'read_text_file', arguments: { path: file } });
    out.push(performance.now() - t0);
    if (r.isError) throw new Error(`read_text_file failed: ${JSON.stringify(r.content)}`);
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '500' },
      rounds: { type: 'string', default: '3' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const calls = Number(values.calls);
  const rounds = Number(values.rounds);
  const loadBefore = loadAverage();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-mcp-'));
  const file = path.join(dir, 'notes.txt');
  writeFileSync(file, 'Meeting notes: ship the proxy on Tuesday.\n'.repeat(10));
  log('starting the gateway and api on a fresh database');
  const stack = await startTestStack({ projector: false });
  const warden = { url: stack.gatewayUrl, apiKey: stack.apiKey };
  const clients: Partial<Record<Setup, Client>> = {};
  const samples: Record<Setup, number[][]> = { direct: [], relay: [], guarded: [] };
  try {
    for (const s of SETUPS) {
      clients[s] = await connect(s, dir, warden);
      await measure(clients[s]!, file, WARMUP);
    }
    for (let round = 0; round < rounds; round++) {
      // Rotate which set-up goes first, so drift on a shared machine spreads over all three.
      const order = SETUPS.map((_, i) => SETUPS[(i + round) % SETUPS.length]!);
      for (const s of order) {
        samples[s].push(await measure(clients[s]!, file, calls));
        log(`round ${round + 1}/${rounds} ${s}: p50 ${fmtMs(median(samples[s].at(-1)!))}`);
      }
    }
  } finally {
    await Promise.allSettled(Object.values(clients).map((c) => c.close()));
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadAverage();
  const stat = (s: Setup, p: number) => median(samples[s].map((r) => percentile(r, p)));
  const rows = SETUPS.map(
    (s) =>
      `| ${LABEL[s]} | ${fmtMs(stat(s, 50))} | ${fmtMs(stat(s, 99))} | ${samples[s].map((r) => fmtMs(percentile(r, 50))).join(', ')} |`,
  );
  const added = (s: Setup) =>
    `| **added by ${s === 'relay' ? 'the relay' : 'the proxy with the guard'}** | ${fmtMs(stat(s, 50) - stat('direct', 50))} | ${fmtMs(stat(s, 99) - stat('direct', 99))} | |`;
  const section = [
    '## MCP guard proxy (`bench:mcp`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npm run bench:mcp\` on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, @modelcontextprotocol/sdk ${sdkVersion()} ` +
      `(1-minute load ${loadBefore[0]} before, ${loadAfter[0]} after).`,
    '',
    `**Setup.** The SDK's \`Client\` over stdio calls \`read_text_file\` of \`@modelcontextprotocol/server-filesystem\` on a 420-byte file, one call at a time: ${calls} calls per set-up and round, ${rounds} rounds rotating the order, after ${WARMUP} warm-up calls each. "Enforce" runs against the gateway on loopback (PostgreSQL and Kafka on the same machine, no policy); every call is allowed, so each is one \`POST /v1/guardrails/evaluate\` plus its events, sent in the background.`,
    '',
    '| per `tools/call` | p50 (median of rounds) | p99 (median of rounds) | p50 per round |',
    '| --- | ---: | ---: | --- |',
    ...rows,
    added('relay'),
    added('guarded'),
    '',
    'The relay adds two stdio hops and a JSON parse and serialise per message; the guard adds the evaluation round trip (the proxy waits for the decision before it forwards the call) and the provenance work of the client (docs/benchmarks.md "Provenance in the TypeScript client").',
  ].join('\n');
  process.stdout.write(section + '\n');
  if (!values['no-write']) {
    writeDocSection(path.join(ROOT, 'docs/benchmarks.md'), 'mcp', section);
    log('wrote docs/benchmarks.md');
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
