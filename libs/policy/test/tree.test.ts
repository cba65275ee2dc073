import type { MatchNode } from '@agent-warden/contracts';
import { compilePolicy, evaluateOne, type EvaluationInput } from '../src';
import { holds, policy, reasonOf } from './helpers';

const A: MatchNode = { field: 'arguments.a', op: 'eq', value: 1 };
const B: MatchNode = { field: 'arguments.b', op: 'eq', value: 1 };
const C: MatchNode = { field: 'arguments.c', op: 'eq', value: 1 };

/** Input where exactly the named flags hold. */
const flags = (...on: ('a' | 'b' | 'c')[]): EvaluationInput => ({
  arguments: Object.fromEntries(on.map((k) => [k, 1])),
});

const ALL_COMBOS: ('a' | 'b' | 'c')[][] = [
  [],
  ['a'],
  ['b'],
  ['c'],
  ['a', 'b'],
  ['a', 'c'],
  ['b', 'c'],
  ['a', 'b', 'c'],
];

describe('all / any / not', () => {
  test.each(ALL_COMBOS)('truth table over %j', (...on) => {
    const input = flags(...on);
    const a = on.includes('a');
    const b = on.includes('b');
    const c = on.includes('c');
    expect(holds({ all: [A, B] }, input)).toBe(a && b);
    expect(holds({ any: [A, B] }, input)).toBe(a || b);
    expect(holds({ not: A }, input)).toBe(!a);
    expect(holds({ all: [A, B, C] }, input)).toBe(a && b && c);
    expect(holds({ any: [A, B, C] }, input)).toBe(a || b || c);
    expect(holds({ all: [A, { any: [B, C] }] }, input)).toBe(a && (b || c));
    expect(holds({ any: [A, { all: [B, C] }] }, input)).toBe(a || (b && c));
    expect(holds({ not: { all: [A, B] } }, input)).toBe(!(a && b));
    expect(holds({ not: { any: [A, B] } }, input)).toBe(!(a || b));
    expect(holds({ all: [{ not: A }, { not: B }] }, input)).toBe(!a && !b);
    expect(holds({ not: { not: A } }, input)).toBe(a);
    expect(holds({ any: [{ all: [A, { not: B }] }, { all: [{ not: A }, C] }] }, input)).toBe(
      (a && !b) || (!a && c),
    );
  });

  test('single-child all / any act like the child', () => {
    expect(holds({ all: [A] }, flags('a'))).toBe(true);
    expect(holds({ any: [A] }, flags())).toBe(false);
  });

  test('long lists (beyond the unrolled sizes) and deep nesting', () => {
    const many = Array.from(
      { length: 7 },
      (_, k) => ({ field: `arguments.k${k}`, op: 'exists' }) as MatchNode,
    );
    const all7 = { arguments: Object.fromEntries(many.map((_, k) => [`k${k}`, k])) };
    expect(holds({ all: many }, all7)).toBe(true);
    expect(holds({ all: many }, { arguments: { k0: 1 } })).toBe(false);
    expect(holds({ any: many }, { arguments: { k6: 1 } })).toBe(true);
    expect(holds({ any: many }, { arguments: {} })).toBe(false);
    let deep: MatchNode = A;
    for (let k = 0; k < 20; k++) deep = k % 2 === 0 ? { all: [deep] } : { not: { not: deep } };
    expect(holds(deep, flags('a'))).toBe(true);
    expect(holds(deep, flags())).toBe(false);
  });
});

describe('reasons', () => {
  const prodDelete: MatchNode = {
    all: [
      { field: 'resource.environment', op: 'eq', value: 'production' },
      { field: 'tool.name', op: 'glob', value: 'delete_*' },
    ],
  };

  test('all: names every condition', () => {
    expect(
      reasonOf(prodDelete, { resource: { environment: 'production' }, tool: { name: 'delete_file' } }),
    ).toBe('resource.environment = "production" and tool.name matches "delete_*"');
  });

  test('no reason when the policy does not match', () => {
    expect(
      reasonOf(prodDelete, { resource: { environment: 'staging' }, tool: { name: 'delete_file' } }),
    ).toBeUndefined();
  });

  test('any: names the branch that matched (the first one that holds)', () => {
    const m: MatchNode = { any: [A, B] };
    expect(reasonOf(m, flags('b'))).toBe('arguments.b = 1');
    expect(reasonOf(m, flags('a', 'b'))).toBe('arguments.a = 1');
  });

  test('any inside all: the matched branch joins the conjunction', () => {
    const m: MatchNode = {
      all: [A, { any: [B, { all: [C, { field: 'tool.name', op: 'eq', value: 'bash' }] }] }],
    };
    expect(reasonOf(m, { ...flags('a', 'c'), tool: { name: 'bash' } })).toBe(
      'arguments.a = 1 and arguments.c = 1 and tool.name = "bash"',
    );
  });

  test('not: shows the negated subtree, long lists cut with an ellipsis', () => {
    const known = [
      'GB29NWBK60161331926819',
      'SE3550000000054910000003',
      'CH9300762011623852957',
      'DE89370400440532013000',
      'FR1420041010050500013M02606',
    ];
    const m: MatchNode = {
      all: [
        { field: 'tool.name', op: 'eq', value: 'send_money' },
        { not: { field: 'arguments.recipient', op: 'in', value: known } },
      ],
    };
    expect(
      reasonOf(m, { tool: { name: 'send_money' }, arguments: { recipient: 'US133000000121212121212' } }),
    ).toBe(
      'tool.name = "send_money" and not (arguments.recipient in ["GB29NWBK60161331926819", "SE3550000000054910000003", "CH9300762011623852957", … +2 more])',
    );
  });

  test('not over a combination keeps its structure, with parentheses where needed', () => {
    const m: MatchNode = { not: { any: [A, { all: [B, C] }] } };
    expect(reasonOf(m, flags())).toBe('not (arguments.a = 1 or (arguments.b = 1 and arguments.c = 1))');
    const n: MatchNode = { not: { all: [A, { any: [B, C] }] } };
    expect(reasonOf(n, flags())).toBe('not (arguments.a = 1 and (arguments.b = 1 or arguments.c = 1))');
  });

  test('every op has a readable form', () => {
    const input: EvaluationInput = {
      riskLevel: 'critical',
      arguments: { s: 'git push --force', r: 'rm -rf /', n: 2000, list: ['x'] },
    };
    const cases: [MatchNode, string][] = [
      [{ field: 'arguments.s', op: 'eq', value: 'git push --force' }, 'arguments.s = "git push --force"'],
      [{ field: 'arguments.n', op: 'eq', value: 2000 }, 'arguments.n = 2000'],
      [{ field: 'arguments.n', op: 'in', value: [1000, 2000] }, 'arguments.n in [1000, 2000]'],
      [{ field: 'arguments.s', op: 'glob', value: 'git push *' }, 'arguments.s matches "git push *"'],
      [
        { field: 'arguments.s', op: 'regex', value: 'push\\s+(-f|--force)' },
        'arguments.s matches /push\\s+(-f|--force)/',
      ],
      [
        { field: 'arguments.r', op: 'regex', value: 'rm\\s+-rf\\s+/' },
        'arguments.r matches /rm\\s+-rf\\s+\\//',
      ],
      [{ field: 'arguments.s', op: 'contains', value: '--force' }, 'arguments.s contains "--force"'],
      [{ field: 'arguments.list', op: 'contains', value: 'x' }, 'arguments.list contains "x"'],
      [{ field: 'arguments.n', op: 'gte', value: 1000 }, 'arguments.n >= 1000'],
      [{ field: 'arguments.n', op: 'lte', value: 5000 }, 'arguments.n <= 5000'],
      [{ field: 'riskLevel', op: 'gte', value: 'high' }, 'riskLevel >= "high"'],
      [{ field: 'arguments.s', op: 'exists' }, 'arguments.s exists'],
      [{ field: 'arguments.zz', op: 'exists', value: false }, 'arguments.zz does not exist'],
    ];
    for (const [m, text] of cases) expect(reasonOf(m, input)).toBe(text);
  });

  test('long literals are cut', () => {
    const long = 'x'.repeat(200);
    const reason = reasonOf({ field: 'arguments.s', op: 'eq', value: long }, { arguments: { s: long } });
    expect(reason).toBe(`arguments.s = "${'x'.repeat(59)}…"`);
  });

  test('reasons never include the argument values', () => {
    const reason = reasonOf(
      { field: 'arguments.password', op: 'exists' },
      { arguments: { password: 'hunter2' } },
    );
    expect(reason).toBe('arguments.password exists');
  });

  test('description is the whole tree', () => {
    expect(compilePolicy(policy(prodDelete)).description).toBe(
      'resource.environment = "production" and tool.name matches "delete_*"',
    );
    expect(compilePolicy(policy({ any: [A, { all: [B, C] }] })).description).toBe(
      'arguments.a = 1 or (arguments.b = 1 and arguments.c = 1)',
    );
  });
});

describe('evaluateOne', () => {
  test('returns the matched guardrail, even for a disabled draft', () => {
    const draft = compilePolicy(
      policy(A, { id: 'draft-1', name: 'draft', version: 3, enabled: false, decision: 'warn' }),
    );
    expect(evaluateOne(draft, flags('a'))).toEqual({
      policyId: 'draft-1',
      name: 'draft',
      version: 3,
      decision: 'warn',
      reason: 'arguments.a = 1',
    });
    expect(evaluateOne(draft, flags('b'))).toBeUndefined();
  });
});

describe('mayMatchTool (index filter)', () => {
  const may = (m: MatchNode, tool: string | undefined) => compilePolicy(policy(m)).mayMatchTool(tool);
  const eqTool = (v: string): MatchNode => ({ field: 'tool.name', op: 'eq', value: v });
  test.each<[string, MatchNode, (string | undefined)[], (string | undefined)[]]>([
    ['eq', eqTool('bash'), ['bash'], ['sh', undefined]],
    ['in', { field: 'tool.name', op: 'in', value: ['a', 'b'] }, ['a', 'b'], ['c', undefined]],
    [
      'glob',
      { field: 'tool.name', op: 'glob', value: 'delete_*' },
      ['delete_file'],
      ['share_file', undefined],
    ],
    [
      'regex',
      { field: 'tool.name', op: 'regex', value: '^update_' },
      ['update_password'],
      ['get_user', undefined],
    ],
    ['exists false', { field: 'tool.name', op: 'exists', value: false }, [undefined], ['bash']],
    ['no tool condition', A, ['bash', undefined], []],
    ['all with one tool child', { all: [A, eqTool('bash')] }, ['bash'], ['sh']],
    [
      'all intersects',
      {
        all: [
          { field: 'tool.name', op: 'in', value: ['a', 'b'] },
          { field: 'tool.name', op: 'in', value: ['b', 'c'] },
        ],
      },
      ['b'],
      ['a', 'c'],
    ],
    ['any of tool children unions', { any: [eqTool('a'), eqTool('b')] }, ['a', 'b'], ['c']],
    ['any with an unscoped child', { any: [eqTool('a'), A] }, ['a', 'zzz'], []],
    ['not of a tool condition is exact', { not: eqTool('think') }, ['bash', undefined], ['think']],
    ['not of a mixed subtree says nothing', { not: { all: [eqTool('a'), A] } }, ['a', 'b'], []],
    [
      'any inside all',
      { all: [{ any: [eqTool('a'), { field: 'tool.name', op: 'glob', value: 'b*' }] }, A] },
      ['a', 'bash'],
      ['c'],
    ],
  ])('%s', (_label, m, yes, no) => {
    for (const t of yes) expect(may(m, t)).toBe(true);
    for (const t of no) expect(may(m, t)).toBe(false);
  });
});
