/** `in` (`src/operators/in.ts`): what it matches, value by value. */
import { onArg, table } from '../helpers';

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
