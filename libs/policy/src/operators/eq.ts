import { showValue } from '../describe';
import { describeType, isPrimitive, isRiskName, RISK_MESSAGE, type Operator } from './operator';

/** `eq`: strict equality (`===`, no coercion). On `riskLevel` the value must be a risk level name. */
export const eq: Operator = {
  operand: 'scalar',
  operandText: 'string, number or boolean (a risk name on `riskLevel`)',
  summary: 'is strictly equal (`===`, no coercion: `"5"` ≠ `5`)',
  example: { field: 'tool.name', value: 'bash' },
  cost: 1,
  check(value, ctx) {
    if (!isPrimitive(value)) {
      ctx.report(`op "${ctx.op}" needs a string, number or boolean, got ${describeType(value)}`);
    } else if (ctx.field === 'riskLevel' && !isRiskName(value)) {
      ctx.report(RISK_MESSAGE);
    }
  },
  compile(get, v) {
    return (i) => get(i) === v;
  },
  text: (field, value) => `${field} = ${showValue(value)}`,
};
