/** `exists` (`src/operators/exists.ts`): what it matches, value by value. */
import { onArg, table } from '../helpers';

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
