import type { MatchNode } from '@agent-warden/contracts';
import type { EvaluationInput } from '../src';
import { holds, onArg } from './helpers';

const withArg = (v: unknown): EvaluationInput => ({ arguments: { v } });

type Case = [label: string, match: MatchNode, value: unknown, expected: boolean];

function table(cases: Case[]) {
  test.each(cases)('%s', (_label, match, value, expected) => {
    expect(holds(match, withArg(value))).toBe(expected);
  });
}

describe('eq', () => {
  table([
    ['string equal', onArg('eq', 'a'), 'a', true],
    ['string differs', onArg('eq', 'a'), 'b', false],
    ['case-sensitive', onArg('eq', 'a'), 'A', false],
    ['number equal', onArg('eq', 5), 5, true],
    ['number differs', onArg('eq', 5), 6, false],
    ['boolean equal', onArg('eq', true), true, true],
    ['boolean differs', onArg('eq', true), false, false],
    ['no coercion: "5" vs 5', onArg('eq', 5), '5', false],
    ['no coercion: 1 vs true', onArg('eq', true), 1, false],
    ['array never equals', onArg('eq', 'a'), ['a'], false],
    ['object never equals', onArg('eq', 'a'), { a: 1 }, false],
    ['missing', onArg('eq', 'a'), undefined, false],
    ['null', onArg('eq', 'a'), null, false],
  ]);
});

describe('in', () => {
  table([
    ['member string', onArg('in', ['a', 'b']), 'b', true],
    ['not a member', onArg('in', ['a', 'b']), 'c', false],
    ['member number', onArg('in', [1, 2]), 2, true],
    ['no coercion: "2" vs 2', onArg('in', [1, 2]), '2', false],
    ['mixed list, boolean member', onArg('in', ['a', 1, false]), false, true],
    ['array value is not a member', onArg('in', ['a']), ['a'], false],
    ['missing', onArg('in', ['a']), undefined, false],
    ['null', onArg('in', ['a']), null, false],
  ]);
});

describe('glob', () => {
  table([
    ['literal equal', onArg('glob', 'delete_file'), 'delete_file', true],
    ['literal is anchored', onArg('glob', 'delete'), 'delete_file', false],
    ['trailing *', onArg('glob', 'delete_*'), 'delete_file', true],
    ['trailing * matches empty rest', onArg('glob', 'delete_*'), 'delete_', true],
    ['trailing * wrong prefix', onArg('glob', 'delete_*'), 'undelete_file', false],
    ['leading *', onArg('glob', '*_file'), 'share_file', true],
    ['leading * wrong suffix', onArg('glob', '*_file'), 'share_files', false],
    ['inner *', onArg('glob', 'update_*_transaction'), 'update_scheduled_transaction', true],
    ['* crosses slashes', onArg('glob', '/etc/*'), '/etc/ssh/sshd_config', true],
    ['* crosses newlines', onArg('glob', 'a*b'), 'a\n\nb', true],
    ['? is one char', onArg('glob', 'file?.txt'), 'file1.txt', true],
    ['? is exactly one char (none)', onArg('glob', 'file?.txt'), 'file.txt', false],
    ['? is exactly one char (two)', onArg('glob', 'file?.txt'), 'file12.txt', false],
    ['[abc] class', onArg('glob', 'v[123]'), 'v2', true],
    ['[abc] class miss', onArg('glob', 'v[123]'), 'v4', false],
    ['[a-z] range', onArg('glob', 'env-[a-c]'), 'env-b', true],
    ['[a-z] range miss', onArg('glob', 'env-[a-c]'), 'env-d', false],
    ['[!abc] negated', onArg('glob', 'v[!12]'), 'v3', true],
    ['[!abc] negated miss', onArg('glob', 'v[!12]'), 'v1', false],
    ['[^abc] negated', onArg('glob', 'v[^12]'), 'v1', false],
    ['regex characters are literal', onArg('glob', 'a.b+(c)'), 'a.b+(c)', true],
    ['. is not a wildcard', onArg('glob', 'a.b'), 'axb', false],
    ['escaped \\* is literal', onArg('glob', 'a\\*'), 'a*', true],
    ['escaped \\* is not a wildcard', onArg('glob', 'a\\*'), 'ab', false],
    ['case-sensitive', onArg('glob', 'Delete_*'), 'delete_file', false],
    ['lone * matches empty string', onArg('glob', '*'), '', true],
    ['number never matches', onArg('glob', '1*'), 12, false],
    ['array never matches', onArg('glob', '*'), ['a'], false],
    ['missing never matches', onArg('glob', '*'), undefined, false],
  ]);
});

describe('regex', () => {
  table([
    ['unanchored search', onArg('regex', 'rm\\s+-rf'), 'sudo rm  -rf /tmp', true],
    ['no match', onArg('regex', 'rm\\s+-rf'), 'rm -r /tmp', false],
    ['anchors are honoured', onArg('regex', '^ls$'), 'ls -la', false],
    ['case-sensitive', onArg('regex', 'DROP TABLE'), 'drop table users', false],
    ['number never matches', onArg('regex', '\\d+'), 123, false],
    ['boolean never matches', onArg('regex', 'true'), true, false],
    ['object never matches', onArg('regex', 'a'), { a: 'a' }, false],
    ['missing never matches', onArg('regex', '.'), undefined, false],
  ]);

  test('a compiled regex has no state between evaluations', () => {
    // Without the `g` flag, `test` keeps no lastIndex: the same input matches every time.
    for (let k = 0; k < 3; k++) expect(holds(onArg('regex', 'ab'), withArg('xxab'))).toBe(true);
  });
});

describe('contains', () => {
  table([
    ['substring', onArg('contains', 'push'), 'git push --force', true],
    ['no substring', onArg('contains', 'pull'), 'git push', false],
    ['array element string', onArg('contains', 'a@x.com'), ['b@x.com', 'a@x.com'], true],
    ['array without element', onArg('contains', 'a@x.com'), ['b@x.com'], false],
    ['array element number', onArg('contains', 3), [1, 2, 3], true],
    ['no coercion in arrays', onArg('contains', 3), ['3'], false],
    ['array elements are not searched for substrings', onArg('contains', 'a'), ['abc'], false],
    ['number value on a string never matches', onArg('contains', 1), '123', false],
    ['number input never matches', onArg('contains', '1'), 123, false],
    ['object never matches', onArg('contains', 'a'), { a: 1 }, false],
    ['missing never matches', onArg('contains', 'a'), undefined, false],
  ]);
});

describe('gte / lte on numbers', () => {
  table([
    ['gte above', onArg('gte', 1000), 1500, true],
    ['gte equal', onArg('gte', 1000), 1000, true],
    ['gte below', onArg('gte', 1000), 999.99, false],
    ['lte below', onArg('lte', 10), 3, true],
    ['lte equal', onArg('lte', 10), 10, true],
    ['lte above', onArg('lte', 10), 11, false],
    ['negative numbers', onArg('gte', -5), -1, true],
    ['numeric string is not a number', onArg('gte', 1000), '5000', false],
    ['NaN never compares', onArg('gte', 0), Number.NaN, false],
    ['boolean never compares', onArg('lte', 1), true, false],
    ['missing never compares (gte)', onArg('gte', 0), undefined, false],
    ['missing never compares (lte)', onArg('lte', 0), undefined, false],
    ['null never compares', onArg('lte', 0), null, false],
  ]);
});

describe('gte / lte on riskLevel (low < medium < high < critical)', () => {
  const levels = ['low', 'medium', 'high', 'critical'] as const;
  for (const [bi, bound] of levels.entries()) {
    for (const [vi, level] of levels.entries()) {
      test(`${level} gte ${bound} is ${vi >= bi}; lte is ${vi <= bi}`, () => {
        expect(holds({ field: 'riskLevel', op: 'gte', value: bound }, { riskLevel: level })).toBe(vi >= bi);
        expect(holds({ field: 'riskLevel', op: 'lte', value: bound }, { riskLevel: level })).toBe(vi <= bi);
      });
    }
  }
  test('missing or unknown risk levels never compare', () => {
    for (const op of ['gte', 'lte']) {
      const m = { field: 'riskLevel', op, value: 'medium' } as MatchNode;
      expect(holds(m, {})).toBe(false);
      expect(holds(m, { riskLevel: 'extreme' })).toBe(false);
      expect(holds(m, { riskLevel: 'toString' })).toBe(false);
    }
  });
  test('eq and in work on risk names as strings', () => {
    expect(holds({ field: 'riskLevel', op: 'eq', value: 'high' }, { riskLevel: 'high' })).toBe(true);
    expect(
      holds({ field: 'riskLevel', op: 'in', value: ['high', 'critical'] }, { riskLevel: 'medium' }),
    ).toBe(false);
  });
});

describe('exists', () => {
  table([
    ['present string', onArg('exists'), 'x', true],
    ['present empty string', onArg('exists'), '', true],
    ['present false', onArg('exists'), false, true],
    ['present zero', onArg('exists'), 0, true],
    ['missing', onArg('exists'), undefined, false],
    ['null counts as missing', onArg('exists'), null, false],
    ['explicit true, present', onArg('exists', true), 1, true],
    ['explicit true, missing', onArg('exists', true), undefined, false],
    ['false: must not exist, missing', onArg('exists', false), undefined, true],
    ['false: must not exist, null', onArg('exists', false), null, true],
    ['false: must not exist, present', onArg('exists', false), 'x', false],
  ]);
});

describe('fixed fields', () => {
  const input: EvaluationInput = {
    action: { type: 'payment', name: 'transfer' },
    tool: { name: 'send_money' },
    resource: { type: 'account', id: 'acc-1', environment: 'production' },
    riskLevel: 'high',
    agent: { key: 'banking-agent' },
  };
  test.each([
    ['action.type', 'payment'],
    ['action.name', 'transfer'],
    ['resource.type', 'account'],
    ['resource.environment', 'production'],
    ['tool.name', 'send_money'],
    ['riskLevel', 'high'],
    ['agent.key', 'banking-agent'],
  ])('%s reads its part of the input', (field, value) => {
    expect(holds({ field, op: 'eq', value }, input)).toBe(true);
    expect(holds({ field, op: 'eq', value: field === 'riskLevel' ? 'low' : 'other' }, input)).toBe(false);
    expect(holds({ field, op: 'exists' }, {})).toBe(false);
    expect(holds({ field, op: 'eq', value }, {})).toBe(false);
  });

  test('null parts never throw', () => {
    const weird = {
      action: null,
      tool: null,
      resource: null,
      agent: null,
      arguments: null,
    } as unknown as EvaluationInput;
    expect(holds({ field: 'tool.name', op: 'exists', value: false }, weird)).toBe(true);
    expect(holds({ field: 'arguments.a.b', op: 'exists', value: false }, weird)).toBe(true);
  });
});

describe('arguments paths', () => {
  const input: EvaluationInput = {
    arguments: {
      recipient: 'US133000000121212121212',
      amount: 50,
      recipients: ['a@x.com', 'b@x.com'],
      nested: { deep: { flag: true }, list: [{ id: 'first' }, { id: 'second' }] },
      '0': 'zero-key',
      dotted: { 'a.b': 1 },
    },
  };
  test.each([
    ['top-level key', 'arguments.recipient', 'US133000000121212121212', true],
    ['nested object', 'arguments.nested.deep.flag', true, true],
    ['array index', 'arguments.recipients.1', 'b@x.com', true],
    ['array index then key', 'arguments.nested.list.1.id', 'second', true],
    ['numeric key on an object', 'arguments.0', 'zero-key', true],
  ])('%s', (_label, field, value, expected) => {
    expect(holds({ field, op: 'eq', value }, input)).toBe(expected);
  });

  test.each([
    ['missing key', 'arguments.nope'],
    ['missing nested key', 'arguments.nested.nope.deeper'],
    ['index past the end', 'arguments.recipients.5'],
    ['non-numeric segment on an array', 'arguments.recipients.first'],
    ['array length is not exposed', 'arguments.recipients.length'],
    ['path through a string', 'arguments.recipient.0'],
    ['path through a number', 'arguments.amount.x'],
    ['inherited property', 'arguments.constructor'],
    ['prototype', 'arguments.__proto__'],
    ['inherited nested', 'arguments.nested.hasOwnProperty'],
    ['leading zero is not an index', 'arguments.recipients.01'],
  ])('%s is missing (exists false, no throw)', (_label, field) => {
    expect(holds({ field, op: 'exists' }, input)).toBe(false);
    expect(holds({ field, op: 'exists', value: false }, input)).toBe(true);
  });

  test('no arguments at all', () => {
    expect(holds({ field: 'arguments.a', op: 'exists' }, {})).toBe(false);
    expect(holds({ field: 'arguments.a.b.c', op: 'eq', value: 1 }, {})).toBe(false);
  });

  test('a whole array or object can be tested with contains / exists', () => {
    expect(holds({ field: 'arguments.recipients', op: 'contains', value: 'a@x.com' }, input)).toBe(true);
    expect(holds({ field: 'arguments.nested.deep', op: 'exists' }, input)).toBe(true);
  });
});
