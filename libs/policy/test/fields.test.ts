/** Fields: the fixed ones and `arguments.<path>`, read the same way by every operator. */
import type { EvaluationInput } from '../src';
import { holds } from './helpers';

describe('fixed fields', () => {
  const input: EvaluationInput = {
    action: { type: 'payment', name: 'transfer' },
    tool: { name: 'send_money' },
    resource: { type: 'account', id: 'acc-1', environment: 'production' },
    riskLevel: 'high',
    agent: { key: 'banking-agent' },
  };
  test.each([
    ['action.type', 'payment'],
    ['action.name', 'transfer'],
    ['resource.type', 'account'],
    ['resource.environment', 'production'],
    ['tool.name', 'send_money'],
    ['riskLevel', 'high'],
    ['agent.key', 'banking-agent'],
  ])('%s reads its part of the input', (field, value) => {
    expect(holds({ field, op: 'eq', value }, input)).toBe(true);
    expect(holds({ field, op: 'eq', value: field === 'riskLevel' ? 'low' : 'other' }, input)).toBe(false);
    expect(holds({ field, op: 'exists' }, {})).toBe(false);
    expect(holds({ field, op: 'eq', value }, {})).toBe(false);
  });

  test('null parts never throw', () => {
    const weird = {
      action: null,
      tool: null,
      resource: null,
      agent: null,
      arguments: null,
    } as unknown as EvaluationInput;
    expect(holds({ field: 'tool.name', op: 'exists', value: false }, weird)).toBe(true);
    expect(holds({ field: 'arguments.a.b', op: 'exists', value: false }, weird)).toBe(true);
  });
});

describe('arguments paths', () => {
  const input: EvaluationInput = {
    arguments: {
      recipient: 'US133000000121212121212',
      amount: 50,
      recipients: ['a@x.com', 'b@x.com'],
      nested: { deep: { flag: true }, list: [{ id: 'first' }, { id: 'second' }] },
      '0': 'zero-key',
      dotted: { 'a.b': 1 },
    },
  };
  test.each([
    ['top-level key', 'arguments.recipient', 'US133000000121212121212', true],
    ['nested object', 'arguments.nested.deep.flag', true, true],
    ['array index', 'arguments.recipients.1', 'b@x.com', true],
    ['array index then key', 'arguments.nested.list.1.id', 'second', true],
    ['numeric key on an object', 'arguments.0', 'zero-key', true],
  ])('%s', (_label, field, value, expected) => {
    expect(holds({ field, op: 'eq', value }, input)).toBe(expected);
  });

  test.each([
    ['missing key', 'arguments.nope'],
    ['missing nested key', 'arguments.nested.nope.deeper'],
    ['index past the end', 'arguments.recipients.5'],
    ['non-numeric segment on an array', 'arguments.recipients.first'],
    ['array length is not exposed', 'arguments.recipients.length'],
    ['path through a string', 'arguments.recipient.0'],
    ['path through a number', 'arguments.amount.x'],
    ['inherited property', 'arguments.constructor'],
    ['prototype', 'arguments.__proto__'],
    ['inherited nested', 'arguments.nested.hasOwnProperty'],
    ['leading zero is not an index', 'arguments.recipients.01'],
  ])('%s is missing (exists false, no throw)', (_label, field) => {
    expect(holds({ field, op: 'exists' }, input)).toBe(false);
    expect(holds({ field, op: 'exists', value: false }, input)).toBe(true);
  });

  test('no arguments at all', () => {
    expect(holds({ field: 'arguments.a', op: 'exists' }, {})).toBe(false);
    expect(holds({ field: 'arguments.a.b.c', op: 'eq', value: 1 }, {})).toBe(false);
  });

  test('a whole array or object can be tested with contains / exists', () => {
    expect(holds({ field: 'arguments.recipients', op: 'contains', value: 'a@x.com' }, input)).toBe(true);
    expect(holds({ field: 'arguments.nested.deep', op: 'exists' }, input)).toBe(true);
  });
});
