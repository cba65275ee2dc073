import { RISK_RANK } from '@agent-warden/contracts';
import { showValue } from '../describe';
import type { FieldGetter } from '../fields';
import {
  describeType,
  isRiskName,
  RISK_MESSAGE,
  type CheckContext,
  type LeafTest,
  type Operator,
} from './operator';

const RISK = new Map<unknown, number>(Object.entries(RISK_RANK));

/**
 * The shared parts of `gte` and `lte`: a finite number, or on `riskLevel` a risk level name
 * compared by rank (low < medium < high < critical; contracts' `RISK_RANK`). Numeric strings and
 * unknown risk names never match.
 */
export function comparison(up: boolean, symbol: string): Operator {
  return {
    operand: 'number',
    operandText: 'finite number; on `riskLevel` a risk name',
    summary: `is a number \`${symbol}\` the value; on \`riskLevel\`, by rank low < medium < high < critical`,
    example: { field: 'arguments.amount', value: 1000 },
    cost: 1,
    check(value: unknown, ctx: CheckContext) {
      if (ctx.field === 'riskLevel') {
        if (!isRiskName(value)) ctx.report(`op "${ctx.op}" on riskLevel ${RISK_MESSAGE}`);
      } else if (typeof value !== 'number' || !Number.isFinite(value)) {
        ctx.report(`op "${ctx.op}" needs a finite number, got ${describeType(value)}`);
      }
    },
    compile(get: FieldGetter, v: unknown, field: string): LeafTest {
      if (field === 'riskLevel') {
        const bound = RISK.get(v) as number;
        return up
          ? (i) => {
              const r = RISK.get(get(i));
              return r !== undefined && r >= bound;
            }
          : (i) => {
              const r = RISK.get(get(i));
              return r !== undefined && r <= bound;
            };
      }
      const bound = v as number;
      return up
        ? (i) => {
            const x = get(i);
            return typeof x === 'number' && x >= bound;
          }
        : (i) => {
            const x = get(i);
            return typeof x === 'number' && x <= bound;
          };
    },
    text: (field: string, value: unknown) => `${field} ${symbol} ${showValue(value)}`,
  };
}
