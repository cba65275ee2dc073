/** `glob` (`src/operators/glob.ts`): what it matches, value by value. */
import { onArg, table } from '../helpers';

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
