/** `regex` (`src/operators/regex.ts`): what it matches, value by value. */
import { withArg, holds, onArg, table } from '../helpers';

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
