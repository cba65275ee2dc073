/**
 * Micro-benchmark of the guardrail engine: µs per `evaluate` with 10, 100 and 1,000 generated
 * policies (a realistic mix of ops) over varied inputs, with and without the tool-name index.
 *
 *   npx tsx libs/policy/bench/evaluate.bench.ts [--quick]
 *
 * Inputs are the real tool calls of ../shared/data/trajectories (read in place, never copied)
 * when that folder is there, plus generated calls to the generated tools; without the data the
 * inputs are generated only. Prints a markdown table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type { Decision, MatchNode } from '@agent-warden/contracts';
import { createEngine, type Engine, type EvaluationInput, type StoredPolicy } from '../src';

const QUICK = process.argv.includes('--quick');
const SIZES = [10, 100, 1000];
/** Each timed run lasts about this long (ms); the evaluation count is calibrated to it. */
const RUN_MS = QUICK ? 100 : 400;
const REPEATS = QUICK ? 3 : 7;

/** Deterministic PRNG (mulberry32) so every run measures the same policies and inputs. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, pick };
}

/** Tool names seen in the shared trajectories (README "Tool names in the shared set"). */
const REAL_TOOLS = [
  'get_reservation_details',
  'bash',
  'read_channel_messages',
  'create_calendar_event',
  'search_direct_flight',
  'get_all_restaurants_in_city',
  'get_day_calendar_events',
  'search_files_by_filename',
  'get_all_hotels_in_city',
  'get_user_details',
  'get_webpage',
  'update_reservation_flights',
  'calculate',
  'get_channels',
  'get_rating_reviews_for_hotels',
  'get_most_recent_transactions',
  'get_users_in_channel',
  'think',
  'search_emails',
  'get_hotels_prices',
  'send_email',
  'send_money',
  'cancel_reservation',
  'book_reservation',
  'delete_file',
  'invite_user_to_slack',
  'post_webpage',
  'update_scheduled_transaction',
  'share_file',
  'update_password',
  'schedule_transaction',
  'update_user_info',
  'reserve_hotel',
  'send_certificate',
  'transfer_to_human_agents',
  'update_reservation_baggages',
  'find_file',
  'open',
  'edit',
  'submit',
];
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'send', 'run', 'export'];
const ENVS = ['production', 'staging', 'development'];
const RISKS = ['low', 'medium', 'high', 'critical'];
const ACTIONS = ['payment', 'write', 'read', 'delete', 'message', 'shell'];
const IBANS = Array.from(
  { length: 40 },
  (_, k) => `GB${String(10 + k)}NWBK${String(60161331926819 + k * 7919)}`,
);
const COMMAND_RULES = [
  'rm\\s+-(rf|fr)\\s+/',
  'git\\s+push\\s+(.*\\s)?(--force|-f)(\\s|$)',
  'curl\\s[^|]*\\|\\s*(sudo\\s+)?(ba|z)?sh\\b',
  'chmod\\s+-R\\s+777',
  '\\bDROP\\s+TABLE\\b',
  'mkfs\\.',
  ':\\(\\)\\s*\\{',
];

function toolPool(policies: number): string[] {
  const synthetic = Array.from(
    { length: Math.ceil(policies / 4) },
    (_, k) => `${VERBS[k % VERBS.length]}_svc${k}`,
  );
  return [...REAL_TOOLS, ...synthetic];
}

/** A generated policy set: ~75% scoped to tools (eq / in), ~25% on context only (glob, risk, env, agent). */
function generatePolicies(n: number, tools: string[], seed = 1): StoredPolicy[] {
  const r = rng(seed);
  const eqTool = (): MatchNode => ({ field: 'tool.name', op: 'eq', value: r.pick(tools) });
  const out: StoredPolicy[] = [];
  for (let k = 0; k < n; k++) {
    const roll = r.next();
    let match: MatchNode;
    let decision: Decision = r.pick(['warn', 'block', 'require_approval', 'warn'] as Decision[]);
    if (roll < 0.25) {
      match = {
        all: [
          eqTool(),
          {
            field: `arguments.${r.pick(['amount', 'count', 'size'])}`,
            op: 'gte',
            value: 100 * (1 + r.int(50)),
          },
        ],
      };
    } else if (roll < 0.4) {
      match = {
        all: [
          { field: 'tool.name', op: 'in', value: [r.pick(tools), r.pick(tools), 'send_money'] },
          { field: 'arguments.recipient', op: 'exists' },
          { not: { field: 'arguments.recipient', op: 'in', value: IBANS.slice(0, 5 + r.int(30)) } },
        ],
      };
    } else if (roll < 0.5) {
      match = eqTool();
      decision = 'require_approval';
    } else if (roll < 0.6) {
      match = {
        all: [
          { field: 'tool.name', op: 'eq', value: r.next() < 0.3 ? 'bash' : r.pick(tools) },
          { field: 'arguments.command', op: 'regex', value: r.pick(COMMAND_RULES) },
        ],
      };
      decision = 'block';
    } else if (roll < 0.675) {
      match = {
        any: [
          { all: [eqTool(), { field: 'arguments.to', op: 'contains', value: `@ext${r.int(9)}.com` }] },
          { all: [eqTool(), { field: 'arguments.items.0.kind', op: 'eq', value: 'wire' }] },
        ],
      };
    } else if (roll < 0.75) {
      match = { all: [eqTool(), { field: 'resource.environment', op: 'eq', value: 'production' }] };
    } else if (roll < 0.85) {
      match = {
        all: [
          { field: 'tool.name', op: 'glob', value: `${r.pick(VERBS)}_*` },
          { field: 'resource.environment', op: 'eq', value: r.pick(ENVS) },
        ],
      };
    } else if (roll < 0.95) {
      match = {
        all: [
          { field: 'riskLevel', op: 'gte', value: r.pick(['high', 'critical']) },
          { field: 'resource.environment', op: 'in', value: ['production', 'staging'] },
          { field: 'action.type', op: 'eq', value: r.pick(ACTIONS) },
        ],
      };
    } else {
      match = {
        all: [
          { field: 'agent.key', op: 'in', value: [`agent-${r.int(20)}`, `agent-${r.int(20)}`] },
          { not: { field: 'resource.environment', op: 'eq', value: 'development' } },
        ],
      };
    }
    out.push({
      id: `bench-${k}`,
      name: `policy ${String(k).padStart(4, '0')}`,
      version: 1,
      enabled: true,
      decision,
      match,
    });
  }
  return out;
}

/** Real tool calls from the shared trajectories, if the folder is present. */
function realCalls(): { tool: string; args: Record<string, unknown> }[] {
  const dir = resolve(__dirname, '../../../../shared/data/trajectories');
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  for (const file of ['agentdojo.jsonl', 'tau_bench_airline.jsonl', 'swe_agent.jsonl']) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const t = JSON.parse(line) as {
        steps: { kind: string; tool: string | null; arguments: Record<string, unknown> | null }[];
      };
      for (const s of t.steps)
        if (s.kind === 'tool_call' && s.tool) calls.push({ tool: s.tool, args: s.arguments ?? {} });
    }
  }
  return calls;
}

function generateInputs(
  tools: string[],
  real: { tool: string; args: Record<string, unknown> }[],
  seed = 2,
): EvaluationInput[] {
  const r = rng(seed);
  const context = (): EvaluationInput => ({
    resource: { type: 'account', environment: r.pick(ENVS) },
    riskLevel: r.pick(RISKS),
    action: { type: r.pick(ACTIONS) },
    agent: { key: `agent-${r.int(25)}` },
  });
  const inputs: EvaluationInput[] = real.map((c) => ({
    ...context(),
    tool: { name: c.tool },
    arguments: c.args,
  }));
  const generated = Math.max(2000, inputs.length / 2);
  for (let k = 0; k < generated; k++) {
    const tool = r.pick(tools);
    // Arguments shaped by what the tool does, as in the real calls.
    let args: Record<string, unknown>;
    if (/^(send|export)_/.test(tool)) {
      args = {
        amount: r.int(3000),
        recipient: r.next() < 0.8 ? r.pick(IBANS) : `US${r.int(1e9)}`,
        to: `user${r.int(100)}@ext${r.int(30)}.com`,
      };
    } else if (/^(run|create)_/.test(tool) || tool === 'bash') {
      args = {
        command: r.pick([
          'ls -la',
          'python setup.py test',
          'cat README.md',
          'git status',
          'rm -rf /tmp/x',
          'git push -f',
        ]),
        count: r.int(200),
      };
    } else if (/^(update|delete)_/.test(tool)) {
      args = {
        id: `r-${r.int(1e6)}`,
        size: r.int(3000),
        items: [{ kind: r.pick(['wire', 'card', 'cash']) }],
      };
    } else {
      args = { query: `q${r.int(1000)}`, limit: r.int(50) };
    }
    inputs.push({ ...context(), tool: { name: tool }, arguments: args });
  }
  // Shuffle so that consecutive calls differ (no branch-predictor-friendly runs of one tool).
  for (let k = inputs.length - 1; k > 0; k--) {
    const j = r.int(k + 1);
    [inputs[k], inputs[j]] = [inputs[j] as EvaluationInput, inputs[k] as EvaluationInput];
  }
  return inputs;
}

let sink = 0;

/** Median µs per evaluation over REPEATS timed runs of about RUN_MS each (after a warm-up). */
function measure(engine: Engine, inputs: EvaluationInput[]): number {
  const run = (count: number) => {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < count; k++) {
      const res = engine.evaluate(inputs[k % inputs.length] as EvaluationInput, 'enforce');
      sink += res.matchedGuardrails.length;
    }
    return Number(process.hrtime.bigint() - t0) / 1000 / count;
  };
  // Warm up (JIT) and calibrate: grow the count until a run takes RUN_MS.
  let count = 1000;
  let us = run(count);
  while (us * count < RUN_MS * 1000) {
    count *= 2;
    us = run(count);
  }
  const samples: number[] = [];
  for (let rep = 0; rep < REPEATS; rep++) samples.push(run(count));
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

function main() {
  const real = realCalls();
  const rows: string[] = [];
  for (const n of SIZES) {
    const tools = toolPool(n);
    const policies = generatePolicies(n, tools);
    const inputs = generateInputs(tools, real);
    const t0 = process.hrtime.bigint();
    const indexed = createEngine(policies);
    const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const changed = policies.map((p, k) => (k === 0 ? { ...p, version: 2, decision: 'block' as const } : p));
    const t1 = process.hrtime.bigint();
    indexed.update(changed);
    const rebuildMs = Number(process.hrtime.bigint() - t1) / 1e6;
    const flat = createEngine(policies, { indexByTool: false });
    let matched = 0;
    let nonAllow = 0;
    let candidates = 0;
    for (const input of inputs) {
      candidates += indexed.compiled.filter((p) => p.mayMatchTool(input.tool?.name)).length;
      const res = indexed.evaluate(input, 'enforce');
      matched += res.matchedGuardrails.length;
      if (res.policyDecision !== 'allow') nonAllow += 1;
    }
    const usIndexed = measure(indexed, inputs);
    const usFlat = measure(flat, inputs);
    rows.push(
      `| ${n} | ${usIndexed.toFixed(2)} | ${usFlat.toFixed(2)} | ${(candidates / inputs.length).toFixed(1)} | ${(matched / inputs.length).toFixed(2)} | ${((100 * nonAllow) / inputs.length).toFixed(0)}% | ${buildMs.toFixed(1)} | ${rebuildMs.toFixed(1)} |`,
    );
  }
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  console.log(`Machine: ${availableParallelism()} CPUs (nproc), ${cpu}; Node ${process.version}`);
  console.log(
    `Inputs: ${real.length > 0 ? `${real.length} real tool calls from shared/data/trajectories + generated calls` : 'generated calls only (shared data not found)'}; median of ${REPEATS} runs of ~${RUN_MS} ms each, enforce mode.`,
  );
  console.log('');
  console.log(
    '| policies | µs/eval (tool index) | µs/eval (no index) | policies run/eval (index) | matches/eval | non-allow | build ms | rebuild ms (1 changed) |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  if (sink < 0) console.log(sink); // keep the results alive
}

main();
