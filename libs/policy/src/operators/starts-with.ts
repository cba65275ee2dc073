import { showValue } from '../describe';
import { describeType, type Operator } from './operator';

/**
 * `startsWith`: a string that begins with the value, case-sensitive (`String.prototype.startsWith`;
 * no wildcards, so `*` and `?` are literal). For paths and URLs: `arguments.path` under `/etc/`,
 * `arguments.url` on `http://`. The value must be a non-empty string (an empty prefix would match
 * every string); other types never match.
 */
export const startsWith: Operator = {
  operand: 'string',
  operandText: 'non-empty string',
  summary: 'is a string beginning with the value (case-sensitive, no wildcards)',
  example: { field: 'arguments.path', value: '/etc/' },
  cost: 2,
  check(value, ctx) {
    if (typeof value !== 'string') {
      ctx.report(`op "startsWith" needs a string, got ${describeType(value)}`);
    } else if (value === '') {
      ctx.report('must not be empty (an empty prefix matches every string)');
    }
  },
  compile(get, v) {
    const prefix = v as string;
    return (i) => {
      const x = get(i);
      return typeof x === 'string' && x.startsWith(prefix);
    };
  },
  text: (field, value) => `${field} starts with ${showValue(value)}`,
};
