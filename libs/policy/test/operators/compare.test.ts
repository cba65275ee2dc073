/** `gte / lte` (`src/operators/compare.ts`): what it matches, value by value. */
import type { MatchNode } from '@agent-warden/contracts';
import { holds, onArg, table } from '../helpers';

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
