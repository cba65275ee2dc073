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
import fs from 'node:fs';
import path from 'node:path';
import { operatorNameOf } from '../src/operators';
import { policy } from './helpers';

describe('operator registry', () => {
  test('every module of src/operators that exports an operator is one, named after its file, in name order', () => {
    const dir = path.join(__dirname, '../src/operators');
    const stems = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .filter((s) => !['index', 'operator', 'compare'].includes(s));
    expect([...OPERATOR_NAMES].sort()).toEqual(stems.map(operatorNameOf).sort());
    expect(OPERATOR_NAMES).toEqual(
      expect.arrayContaining(['eq', 'in', 'glob', 'regex', 'gte', 'lte', 'exists']),
    );
    expect(OPERATOR_NAMES).toContain('startsWith');
    expect([...OPERATOR_NAMES]).toEqual([...OPERATOR_NAMES].sort());
    expect(Object.keys(OPERATORS)).toEqual(OPERATOR_NAMES);
    expect(Object.isFrozen(OPERATORS)).toBe(true);
  });

  test('file names become camelCase operator names', () => {
    expect(operatorNameOf('starts-with')).toBe('startsWith');
    expect(operatorNameOf('in')).toBe('in');
    expect(operatorNameOf('a-b-c')).toBe('aBC');
  });

  test.each([
    ['docs/guardrails.md', (op: string) => new RegExp('`' + op + '`')],
    ['libs/policy/README.md', (op: string) => new RegExp('^\\| `' + op + '`', 'm')],
  ] as const)('every operator is documented in %s', (doc, pattern) => {
    const text = fs.readFileSync(path.join(__dirname, '../../..', doc), 'utf8');
    const undocumented = OPERATOR_NAMES.filter(
      (op) =>
        !pattern(op).test(text) && !(['gte', 'lte'].includes(op) && /`gte` \/ `lte`|`gte`\/`lte`/.test(text)),
    );
    expect(undocumented).toEqual([]);
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
