import { describeType, type Operator } from './operator';

/** `exists`: the field is present (not `undefined` / `null`); with `value: false`, absent. */
export const exists: Operator = {
  operand: 'flag',
  operandText: 'optional boolean (default `true`)',
  summary: 'is not `undefined`/`null`; with `false`: is `undefined`/`null`',
  example: { field: 'arguments.recipient', value: true },
  optional: true,
  cost: 1,
  check(value, ctx) {
    if (value !== undefined && typeof value !== 'boolean') {
      ctx.report(`op "exists" takes an optional boolean, got ${describeType(value)}`);
    }
  },
  compile(get, v) {
    return v === false
      ? (i) => {
          const x = get(i);
          return x === undefined || x === null;
        }
      : (i) => {
          const x = get(i);
          return x !== undefined && x !== null;
        };
  },
  text: (field, value) => (value === false ? `${field} does not exist` : `${field} exists`),
};
