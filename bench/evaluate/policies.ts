import type { Decision, MatchNode } from '@agent-warden/contracts';
import type { EvaluationInput, StoredPolicy } from '@agent-warden/policy';
import type { Trajectory } from '../../scripts/replay/trajectories';

/** One real tool call of the shared trajectories. */
export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/** Every tool call of `trajectories` (name and logged arguments), in order. */
export function toolCallsOf(trajectories: Trajectory[]): ToolCall[] {
  const out: ToolCall[] = [];
  for (const t of trajectories)
    for (const s of t.steps)
      if (s.kind === 'tool_call' && s.tool) out.push({ tool: s.tool, args: s.arguments ?? {} });
  if (out.length === 0) throw new Error('the shared trajectories hold no tool calls');
  return out;
}

/** Deterministic PRNG (mulberry32) so every run measures the same policies and inputs. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

const ENVS = ['production', 'staging', 'development'] as const;
const RISKS = ['low', 'medium', 'high', 'critical'] as const;
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'send', 'search', 'book'];
const COMMANDS = ['rm\\s+-rf', 'git\\s+push\\s+(-f|--force)', 'curl .*\\|\\s*sh', 'chmod 777', 'DROP TABLE'];

/** The policy fields stored in the `policies` table (id, name, version, enabled, decision, match). */
export type GeneratedPolicy = Omit<StoredPolicy, 'approval'>;

/**
 * `n` generated policies over the real tool names (plus synthetic ones, so that larger sets are
 * not all about the same few tools): ~70% scoped to one tool (eq / in, some with an argument
 * condition or a regex on `arguments.command`), the rest on context only (glob, risk, environment).
 */
export function generatePolicies(n: number, realTools: string[], seed = 1): GeneratedPolicy[] {
  const r = rng(seed);
  const tools = [
    ...realTools,
    ...Array.from({ length: Math.ceil(n / 3) }, (_, k) => `${VERBS[k % VERBS.length]}_svc${k}`),
  ];
  const eqTool = (): MatchNode => ({ field: 'tool.name', op: 'eq', value: r.pick(tools) });
  const out: GeneratedPolicy[] = [];
  for (let k = 0; k < n; k++) {
    const roll = r.next();
    let decision: Decision = r.pick(['warn', 'block', 'require_approval', 'warn'] as Decision[]);
    let match: MatchNode;
    if (roll < 0.25) match = eqTool();
    else if (roll < 0.4)
      match = { all: [eqTool(), { field: 'arguments.amount', op: 'gte', value: 100 * (1 + r.int(50)) }] };
    else if (roll < 0.55)
      match = {
        all: [
          { field: 'tool.name', op: 'in', value: [r.pick(tools), r.pick(tools), r.pick(tools)] },
          { field: 'resource.environment', op: 'eq', value: 'production' },
        ],
      };
    else if (roll < 0.7) {
      match = {
        all: [
          { field: 'tool.name', op: 'eq', value: r.next() < 0.5 ? 'bash' : r.pick(tools) },
          { field: 'arguments.command', op: 'regex', value: r.pick(COMMANDS) },
        ],
      };
      decision = 'block';
    } else if (roll < 0.85)
      match = {
        all: [
          { field: 'tool.name', op: 'glob', value: `${r.pick(VERBS)}_*` },
          { field: 'resource.environment', op: 'eq', value: r.pick(ENVS) },
        ],
      };
    else
      match = {
        all: [
          { field: 'riskLevel', op: 'gte', value: r.pick(['high', 'critical']) },
          { not: { field: 'resource.environment', op: 'eq', value: 'development' } },
        ],
      };
    out.push({
      id: `bench-${k}`,
      name: `bench policy ${String(k).padStart(4, '0')}`,
      version: 1,
      enabled: true,
      decision,
      match,
    });
  }
  return out;
}

/** The context a guarded call carries besides the tool (environment, risk), drawn per call. */
export function contextFor(r: ReturnType<typeof rng>): Pick<EvaluationInput, 'resource' | 'riskLevel'> {
  return { resource: { type: 'account', environment: r.pick(ENVS) }, riskLevel: r.pick(RISKS) };
}

/** Distinct tool names of `calls`. */
export function toolNames(calls: ToolCall[]): string[] {
  return [...new Set(calls.map((c) => c.tool))];
}
