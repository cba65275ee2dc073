import { showValue } from '../describe';
import { compileGlob, globToRegexSource } from '../glob';
import { describeType, type Operator } from './operator';

/** `glob`: an anchored, case-sensitive glob on strings (`*`, `?`, `[a-z]`, `[!a]`, `\x`; see `glob.ts`). */
export const glob: Operator = {
  operand: 'pattern',
  operandText: 'string',
  summary:
    'is a string matching the glob, anchored, case-sensitive: `*` any run of characters (incl. `/`, newlines), `?` one character, `[abc]`, `[a-z]`, `[!abc]`/`[^abc]` classes, `\\x` a literal `x`',
  example: { field: 'tool.name', value: 'delete_*' },
  cost: 3,
  check(value, ctx) {
    if (typeof value !== 'string') {
      ctx.report(`op "glob" needs a string pattern, got ${describeType(value)}`);
      return;
    }
    try {
      new RegExp(globToRegexSource(value).source);
    } catch (err) {
      ctx.report(`invalid glob: ${(err as Error).message}`);
    }
  },
  compile(get, v) {
    const g = compileGlob(v as string);
    return (i) => {
      const x = get(i);
      return typeof x === 'string' && g.test(x);
    };
  },
  text: (field, value) => `${field} matches ${showValue(value)}`,
};
