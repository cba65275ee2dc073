/** `contains` (`src/operators/contains.ts`): what it matches, value by value. */
import { onArg, table } from '../helpers';

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
