/** The operator registry: one source for validation, compilation, rule text and the listing. */
import type { MatchNode } from '@agent-warden/contracts';
import {
  compilePolicy,
  describeMatch,
  listOperators,
  OPERATOR_NAMES,
  OPERATORS,
  validatePolicy,
} from '../src';
import { policy } from './helpers';

describe('operator registry', () => {
  test('names come from the registry, in its order', () => {
    expect(OPERATOR_NAMES.slice(0, 8)).toEqual([
      'eq',
      'in',
      'glob',
      'regex',
      'gte',
      'lte',
      'exists',
      'contains',
    ]);
    expect(Object.keys(OPERATORS)).toEqual(OPERATOR_NAMES);
    expect(Object.isFrozen(OPERATORS)).toBe(true);
  });

  test('inherited keys are not operators', () => {
    for (const op of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const r = validatePolicy({
        name: 'x',
        decision: 'block',
        match: { field: 'tool.name', op, value: 'a' },
      });
      expect(r.ok).toBe(false);
    }
  });

  test.each(listOperators().map((o) => [o.name, o] as const))(
    '%s: its listed example validates, and its text is the compiled description',
    (_name, info) => {
      const { field, op, value, text } = info.example;
      const match = { field, op, value } as MatchNode;
      expect(validatePolicy({ name: 'x', decision: 'block', match })).toMatchObject({ ok: true });
      expect(compilePolicy(policy(match)).description).toBe(text);
      expect(info.summary.length).toBeGreaterThan(0);
      expect(info.operandText.length).toBeGreaterThan(0);
      expect(info.valueRequired).toBe(info.name !== 'exists');
    },
  );
});

describe('describeMatch', () => {
  const trees: MatchNode[] = [
    { field: 'tool.name', op: 'eq', value: 'bash' },
    { all: [{ field: 'tool.name', op: 'eq', value: 'bash' }] },
    {
      all: [
        { field: 'tool.name', op: 'in', value: ['a', 'b', 'c', 'd', 'e'] },
        {
          any: [
            { field: 'arguments.command', op: 'regex', value: 'rm\\s+-rf\\s+/' },
            {
              all: [
                { field: 'riskLevel', op: 'gte', value: 'high' },
                { field: 'agent.key', op: 'exists' },
              ],
            },
          ],
        },
        { not: { field: 'arguments.to', op: 'glob', value: '*@example.com' } },
        {
          not: {
            any: [
              { field: 'arguments.n', op: 'lte', value: 3 },
              { field: 'resource.type', op: 'exists' },
            ],
          },
        },
      ],
    },
    {
      any: [
        { field: 'arguments.tags', op: 'contains', value: 'x'.repeat(80) },
        { field: 'arguments.v', op: 'exists', value: false },
      ],
    },
  ];

  test.each(trees.map((t) => [JSON.stringify(t).slice(0, 60), t] as const))(
    'gives the compiled description: %s',
    (_label, match) => {
      expect(describeMatch(match)).toBe(compilePolicy(policy(match)).description);
    },
  );

  test('names the parts of a tree', () => {
    expect(describeMatch(trees[2] as MatchNode)).toBe(
      'tool.name in ["a", "b", "c", … +2 more] and (arguments.command matches /rm\\s+-rf\\s+\\// or (riskLevel >= "high" and agent.key exists)) and not (arguments.to matches "*@example.com") and not (arguments.n <= 3 or resource.type exists)',
    );
  });

  test('an op missing from the registry shows as unknown, and does not compile', () => {
    const match = { field: 'tool.name', op: 'nope', value: 1 } as unknown as MatchNode;
    expect(describeMatch(match)).toBe('tool.name <unknown op "nope">');
    expect(() => compilePolicy(policy(match))).toThrow('unknown op "nope"');
  });
});
