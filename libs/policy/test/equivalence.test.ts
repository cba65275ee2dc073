/**
 * Randomised cross-checks (deterministic seed): the compiled closures agree with a naive
 * interpreter of the match tree, and the tool-indexed engine agrees with the flat one.
 */
import { RISK_RANK, type MatchNode, type Mode } from '@agent-warden/contracts';
import { compilePolicy, createEngine, type EvaluationInput, type StoredPolicy } from '../src';

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T };
}

const TOOLS = ['bash', 'send_money', 'delete_file', 'delete_user', 'update_password', 'think'];
const RISKS = ['low', 'medium', 'high', 'critical'];

/** Reference semantics, written as plainly as possible. */
function read(input: EvaluationInput, field: string): unknown {
  if (!field.startsWith('arguments.')) {
    const [head, tail] = field.split('.') as [string, string | undefined];
    const part = (input as Record<string, unknown>)[head];
    if (tail === undefined) return part;
    return part && typeof part === 'object' ? (part as Record<string, unknown>)[tail] : undefined;
  }
  let cur: unknown = input.arguments;
  for (const seg of field.split('.').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) cur = /^(0|[1-9]\d*)$/.test(seg) ? cur[Number(seg)] : undefined;
    else cur = Object.hasOwn(cur, seg) ? (cur as Record<string, unknown>)[seg] : undefined;
  }
  return cur;
}

function globToRegex(glob: string): RegExp {
  const src = glob
    .replace(/[.+^${}()|\\/-]/g, '\\$&')
    .replace(/\*/g, '[\\s\\S]*')
    .replace(/\?/g, '[\\s\\S]');
  return new RegExp(`^${src}$`);
}

function reference(node: MatchNode, input: EvaluationInput): boolean {
  if ('all' in node) return node.all.every((c) => reference(c, input));
  if ('any' in node) return node.any.some((c) => reference(c, input));
  if ('not' in node) return !reference(node.not, input);
  const v = read(input, node.field);
  const x = node.value;
  switch (node.op) {
    case 'eq':
      return v === x;
    case 'in':
      return (x as unknown[]).includes(v);
    case 'glob':
      return typeof v === 'string' && globToRegex(x as string).test(v);
    case 'regex':
      return typeof v === 'string' && new RegExp(x as string).test(v);
    case 'contains':
      return (
        (typeof v === 'string' && typeof x === 'string' && v.includes(x)) ||
        (Array.isArray(v) && v.includes(x))
      );
    case 'gte':
    case 'lte': {
      const rank = (r: unknown) =>
        typeof r === 'string' && r in RISK_RANK ? RISK_RANK[r as keyof typeof RISK_RANK] : undefined;
      const [a, b] =
        node.field === 'riskLevel'
          ? [rank(v), rank(x)]
          : [typeof v === 'number' ? v : undefined, x as number];
      if (a === undefined || b === undefined) return false;
      return node.op === 'gte' ? a >= b : a <= b;
    }
    case 'exists':
      return x === false ? v === undefined || v === null : v !== undefined && v !== null;
    default:
      // `op` is any string since the registry owns the names; the random trees use these only.
      throw new Error(`no reference semantics for op "${node.op}"`);
  }
}

function randomLeaf(r: ReturnType<typeof rng>): MatchNode {
  switch (Math.floor(r.next() * 10)) {
    case 0:
      return { field: 'tool.name', op: 'eq', value: r.pick(TOOLS) };
    case 1:
      return { field: 'tool.name', op: 'in', value: [r.pick(TOOLS), r.pick(TOOLS)] };
    case 2:
      return { field: 'tool.name', op: 'glob', value: r.pick(['delete_*', '*_money', 'b?sh', 'think']) };
    case 3:
      return r.next() < 0.5
        ? { field: 'tool.name', op: 'regex', value: r.pick(['^update_', 'a']) }
        : { field: 'tool.name', op: 'exists', value: r.pick([true, false]) };
    case 4:
      return { field: 'riskLevel', op: r.pick(['gte', 'lte']), value: r.pick(RISKS) } as MatchNode;
    case 5:
      return {
        field: 'arguments.amount',
        op: r.pick(['gte', 'lte']),
        value: r.pick([10, 100, 1000]),
      } as MatchNode;
    case 6:
      return {
        field: 'arguments.command',
        op: r.pick(['regex', 'contains']),
        value: r.pick(['rm', 'push\\s+-f', '--force']),
      } as MatchNode;
    case 7:
      return { field: 'arguments.to', op: 'contains', value: r.pick(['a@x.com', 'b@y.com']) };
    case 8:
      return { field: 'arguments.items.0.kind', op: 'eq', value: r.pick(['wire', 'card']) };
    default:
      return {
        field: r.pick(['resource.environment', 'agent.key']),
        op: 'exists',
        value: r.pick([true, false]),
      };
  }
}

function randomTree(r: ReturnType<typeof rng>, depth: number): MatchNode {
  const roll = r.next();
  if (depth >= 3 || roll < 0.4) return randomLeaf(r);
  if (roll < 0.55) return { not: randomTree(r, depth + 1) };
  const children = Array.from({ length: 1 + Math.floor(r.next() * 3) }, () => randomTree(r, depth + 1));
  return roll < 0.8 ? { all: children } : { any: children };
}

function randomInput(r: ReturnType<typeof rng>): EvaluationInput {
  const input: EvaluationInput = {};
  if (r.next() < 0.9) input.tool = { name: r.pick([...TOOLS, 'other']) };
  if (r.next() < 0.7) input.riskLevel = r.pick(RISKS);
  if (r.next() < 0.5) input.resource = { environment: r.pick(['production', 'staging']) };
  if (r.next() < 0.3) input.agent = { key: 'agent-1' };
  if (r.next() < 0.9) {
    input.arguments = {
      amount: r.pick([5, 10, 100, 500, 1000, 5000, '500']),
      command: r.pick(['rm -rf /', 'git push -f', 'ls', 'git push --force']),
      to: r.pick([['a@x.com'], 'b@y.com', 'c@z.com']),
      items: r.pick([[{ kind: 'wire' }], [], [{ kind: 'card' }], undefined]),
    };
  }
  return input;
}

const r = rng(42);
const policies: StoredPolicy[] = Array.from({ length: 300 }, (_, k) => ({
  id: `q${k}`,
  name: `random ${String(k).padStart(3, '0')}`,
  version: 1,
  enabled: r.next() < 0.9,
  decision: r.pick(['allow', 'warn', 'require_approval', 'block'] as const),
  match: randomTree(r, 0),
}));
const inputs = Array.from({ length: 400 }, () => randomInput(r));

test('compiled policies agree with the reference interpreter', () => {
  const mismatches: unknown[] = [];
  let checked = 0;
  let held = 0;
  for (const p of policies) {
    const c = compilePolicy(p);
    for (const input of inputs) {
      const want = reference(p.match, input);
      const got = c.matches(input);
      const reasoned = c.reason(input) !== undefined;
      // The tool filter is an over-approximation: it never rules out a policy that matches.
      const filterOk = !want || c.mayMatchTool(input.tool?.name);
      if (got !== want || reasoned !== want || !filterOk)
        mismatches.push({ policy: p.match, input, want, got, reasoned, filterOk });
      checked += 1;
      if (want) held += 1;
    }
  }
  expect(mismatches.slice(0, 3)).toEqual([]);
  expect(checked).toBe(policies.length * inputs.length);
  // The random mix must exercise both outcomes.
  expect(held).toBeGreaterThan(checked * 0.05);
  expect(held).toBeLessThan(checked * 0.95);
});

test('the tool-indexed engine decides exactly like the flat one', () => {
  const indexed = createEngine(policies);
  const flat = createEngine(policies, { indexByTool: false });
  const mismatches: unknown[] = [];
  for (const input of inputs) {
    for (const mode of ['enforce', 'monitor'] as Mode[]) {
      const want = JSON.stringify(flat.evaluate(input, mode));
      // Twice: the second call is served from the tool cache.
      for (let k = 0; k < 2; k++) {
        const got = JSON.stringify(indexed.evaluate(input, mode));
        if (got !== want) mismatches.push({ input, mode, want, got });
      }
    }
  }
  expect(mismatches.slice(0, 3)).toEqual([]);
});
