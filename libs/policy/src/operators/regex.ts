import { showRegex } from '../describe';
import { compilePattern } from '../regex-compile';
import { MAX_REGEX_LENGTH, nestedQuantifierProblem } from '../regex-safety';
import { describeType, type Operator } from './operator';

/**
 * `regex`: a JavaScript RegExp search on strings (unanchored, no flags). The pattern must be
 * non-empty, at most {@link MAX_REGEX_LENGTH} characters and free of nested unbounded
 * quantifiers (`regex-safety.ts`).
 */
export const regex: Operator = {
  operand: 'pattern',
  operandText: 'non-empty string ≤ 1,000 chars, no nested quantifier',
  summary: 'is a string where the JS RegExp finds a match (unanchored, no flags — use `^`/`$`, `[Aa]`)',
  example: { field: 'arguments.command', value: 'rm\\s+-rf\\s+/' },
  cost: 8,
  check(value, ctx) {
    if (typeof value !== 'string') {
      ctx.report(`op "regex" needs a string pattern, got ${describeType(value)}`);
      return;
    }
    if (value === '') {
      ctx.report('must not be empty (an empty pattern matches every string)');
      return;
    }
    if (value.length > MAX_REGEX_LENGTH) {
      ctx.report(`pattern is ${value.length} characters; at most ${MAX_REGEX_LENGTH} are allowed`);
      return;
    }
    try {
      new RegExp(value);
    } catch (err) {
      ctx.report((err as Error).message);
      return;
    }
    const unsafe = nestedQuantifierProblem(value);
    if (unsafe) ctx.report(unsafe);
  },
  compile(get, v) {
    const re = compilePattern(v as string);
    return (i) => {
      const x = get(i);
      return typeof x === 'string' && re.test(x);
    };
  },
  text: (field, value) => `${field} matches ${showRegex(value as string)}`,
};
