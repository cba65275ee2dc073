import { showList } from '../describe';
import { describeType, isPrimitive, isRiskName, RISK_MESSAGE, type Operator } from './operator';

/** `in`: membership in a list (strict, through a `Set`). On `riskLevel` the members must be risk level names. */
export const inList: Operator = {
  operand: 'list',
  operandText: 'non-empty array of strings / numbers / booleans',
  summary: 'is a member (strict, via a `Set`)',
  example: { field: 'tool.name', value: ['send_money', 'schedule_transaction'] },
  cost: 1,
  check(value, ctx) {
    if (!Array.isArray(value)) {
      ctx.report(`op "in" needs an array of strings, numbers or booleans, got ${describeType(value)}`);
      return;
    }
    if (value.length === 0) ctx.report('must hold at least one value');
    value.forEach((v, i) => {
      if (!isPrimitive(v)) {
        ctx.report(`must be a string, number or boolean, got ${describeType(v)}`, i);
      } else if (ctx.field === 'riskLevel' && !isRiskName(v)) {
        ctx.report(RISK_MESSAGE, i);
      }
    });
  },
  compile(get, v) {
    const set = new Set(v as unknown[]);
    return (i) => set.has(get(i));
  },
  text: (field, value) => `${field} in ${showList(value as unknown[])}`,
};
