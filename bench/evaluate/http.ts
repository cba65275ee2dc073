import readline from 'node:readline';
import { bootstrapProject } from '@agent-warden/api';
import { newId, type GuardDecision } from '@agent-warden/contracts';
import { createPrisma } from '@agent-warden/db';
import { createTestDatabase } from '../../test/support/database';
import { randomSuffix } from '../../test/support/env';
import { spawnTsx } from '../lib/child';
import type { Cleanup } from '../lib/cleanup';
import type { BenchEnv } from '../lib/env';
import { identifyAgents } from '../lib/http';
import { Pool } from '../lib/load';
import { openLoop, type OpenLoopResult } from './open-loop';
import { contextFor, generatePolicies, rng, toolNames, type ToolCall } from './policies';

/** Settings of the HTTP part. */
export interface HttpBenchOptions {
  policies: number;
  rate: number;
  warmupMs: number;
  durationMs: number;
  /** Distinct pre-built request bodies, sent round robin. */
  bodies: number;
}

/** Results of the HTTP part. */
export interface HttpBenchResult {
  options: HttpBenchOptions;
  evaluate: OpenLoopResult;
  bare: OpenLoopResult;
  /** Share of the bodies with a matched policy and mean body size (bytes), from a check before the load. */
  matchedShare: number;
  meanBodyBytes: number;
}

/** Spawns `bench/evaluate/gateway-main.ts` and resolves with its URL once it listens. */
async function spawnBenchGateway(
  env: Record<string, string>,
  cleanup: Cleanup,
  timeoutMs = 60_000,
): Promise<string> {
  const proc = spawnTsx('bench/evaluate/gateway-main.ts', { PORT: '0', LOG_LEVEL: 'warn', ...env }, [
    'ignore',
    'pipe',
    'inherit',
  ]);
  cleanup.add('stop gateway', () => proc.stop());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let url: string | undefined;
    proc.child.once('exit', (code) => {
      clearTimeout(timer);
      if (!url) reject(new Error(`gateway exited with ${code} before listening`));
    });
    readline.createInterface({ input: proc.child.stdout! }).on('line', (line) => {
      if (!url) {
        try {
          const j = JSON.parse(line) as { ready?: boolean; url?: string };
          if (j.ready && j.url) {
            url = j.url;
            clearTimeout(timer);
            return resolve(j.url);
          }
        } catch {
          /* a log line */
        }
      }
      process.stderr.write(line + '\n');
    });
  });
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/**
 * Part 2: `POST /v1/guardrails/evaluate` (monitor mode) of the real gateway in a child process,
 * on a fresh database with `policies` generated policies in the `policies` table, at a fixed
 * request rate (open loop, Node's fetch with keep-alive); then the same load on `POST /bench/bare`
 * of the same process.
 */
export async function benchHttp(
  env: BenchEnv,
  calls: ToolCall[],
  o: HttpBenchOptions,
  cleanup: Cleanup,
  log: (msg: string) => void,
): Promise<HttpBenchResult> {
  const db = await createTestDatabase();
  cleanup.add('drop database', () => db.drop());
  const prisma = createPrisma(db.url, { poolMax: 1 });
  const apiKey = `aw_bench_${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
  try {
    const { projectId } = await bootstrapProject(prisma, { initApiKey: apiKey });
    await prisma.policy.createMany({
      data: generatePolicies(o.policies, toolNames(calls)).map((p) => ({
        id: newId(),
        projectId,
        name: p.name,
        enabled: true,
        decision: p.decision,
        match: p.match as object,
        version: 1,
      })),
    });
  } finally {
    await prisma.$disconnect();
  }

  const prefix = `bench${randomSuffix()}.`;
  const url = await spawnBenchGateway(
    { DATABASE_URL: db.url, KAFKA_BROKERS: env.kafkaBrokers.join(','), KAFKA_TOPIC_PREFIX: prefix },
    cleanup,
  );
  log(`gateway at ${url} with ${o.policies} policies, topic prefix ${prefix}`);
  const agent = [
    ...(await identifyAgents(url, apiKey, [{ key: 'bench-agent', name: 'bench agent' }])).values(),
  ][0]!;

  const r = rng(11);
  const bodies = Array.from({ length: o.bodies }, () => {
    const c = r.pick(calls);
    return JSON.stringify({
      agentId: agent.agentId,
      agentVersionId: agent.agentVersionId,
      mode: 'monitor',
      tool: { name: c.tool },
      arguments: c.args,
      ...contextFor(r),
    });
  });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const evalUrl = `${url}/v1/guardrails/evaluate`;
  const bareUrl = `${url}/bench/bare`;

  // Check: every body is accepted, and how many match a policy.
  let matched = 0;
  for (const b of bodies.slice(0, 300)) {
    const d = JSON.parse(await post(evalUrl, headers, b)) as GuardDecision;
    if (d.matchedGuardrails.length > 0) matched += 1;
  }
  const matchedShare = matched / Math.min(300, bodies.length);
  const meanBodyBytes = bodies.reduce((a, b) => a + Buffer.byteLength(b), 0) / bodies.length;
  log(
    `check: ${Math.round(matchedShare * 100)}% of requests match a policy; mean body ${Math.round(meanBodyBytes)} B`,
  );

  const pool = new Pool(bodies);
  const run = (target: string) =>
    openLoop({
      rate: o.rate,
      warmupMs: o.warmupMs,
      durationMs: o.durationMs,
      send: async () => {
        await post(target, headers, pool.next());
      },
    });
  log(`evaluate: ${o.rate} req/s, ${o.warmupMs / 1000} s warm-up + ${o.durationMs / 1000} s`);
  const evaluate = await run(evalUrl);
  log(`bare: ${o.rate} req/s, ${o.warmupMs / 1000} s warm-up + ${o.durationMs / 1000} s`);
  const bare = await run(bareUrl);
  return { options: o, evaluate, bare, matchedShare, meanBodyBytes };
}
