/** `eq` (`src/operators/eq.ts`): what it matches, value by value. */
import { onArg, table } from '../helpers';

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
