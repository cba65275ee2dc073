import { showValue } from '../describe';
import { describeType, isPrimitive, type Operator } from './operator';

/** `contains`: a substring of a string, or an element (strict) of an array. */
export const contains: Operator = {
  operand: 'scalar',
  operandText: 'non-empty string, or a number / boolean',
  summary: 'string: contains the substring; array: has the element (strict)',
  example: { field: 'arguments.query', value: 'password' },
  cost: 3,
  check(value, ctx) {
    if (!isPrimitive(value)) {
      ctx.report(`op "contains" needs a string, number or boolean, got ${describeType(value)}`);
    } else if (value === '') {
      ctx.report('must not be empty (an empty substring matches every string)');
    }
  },
  compile(get, v) {
    if (typeof v === 'string') {
      return (i) => {
        const x = get(i);
        return typeof x === 'string' ? x.includes(v) : Array.isArray(x) && x.includes(v);
      };
    }
    return (i) => {
      const x = get(i);
      return Array.isArray(x) && x.includes(v);
    };
  },
  text: (field, value) => `${field} contains ${showValue(value)}`,
};
