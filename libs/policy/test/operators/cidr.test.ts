import type { MatchNode } from '@agent-warden/contracts';
import { compilePolicy, describeMatch, listOperators, validatePolicy } from '../../src';
import { holds, onArg, policy, reasonOf } from '../helpers';

const errorsOf = (match: unknown) => {
  const r = validatePolicy({ name: 'x', decision: 'block', match });
  return r.ok ? [] : r.errors;
};

describe('cidr', () => {
  const ranges = ['10.0.0.0/8', '169.254.169.254/32', 'fd00::/8'];
  test.each<[string, unknown, boolean]>([
    ['inside an IPv4 range', '10.20.30.40', true],
    ['first address of the range', '10.0.0.0', true],
    ['last address of the range', '10.255.255.255', true],
    ['just outside', '11.0.0.0', false],
    ['a /32 is one address', '169.254.169.254', true],
    ['its neighbour is not', '169.254.169.253', false],
    ['inside an IPv6 range', 'fd12:3456::1', true],
    ['outside the IPv6 range', '2001:db8::1', false],
    ['a host name never matches', 'metadata.internal', false],
    ['an address with a port is not an address', '10.0.0.1:80', false],
    ['a number never matches', 167772161, false],
    ['an array never matches', ['10.0.0.1'], false],
    ['missing', undefined, false],
  ])('%s', (_label, value, expected) => {
    expect(holds(onArg('cidr', ranges), { arguments: { v: value } })).toBe(expected);
  });

  test('one range may be given as a string', () => {
    expect(holds(onArg('cidr', '192.168.0.0/16'), { arguments: { v: '192.168.1.7' } })).toBe(true);
    expect(holds(onArg('cidr', '192.168.0.0/16'), { arguments: { v: '192.169.1.7' } })).toBe(false);
  });

  test('the value must be CIDR ranges, each problem reported at its path', () => {
    expect(
      errorsOf({
        field: 'arguments.host',
        op: 'cidr',
        value: ['10.0.0.0/8', '10.0.0.0', 'x/8', '10.0.0.0/33', 5],
      }),
    ).toEqual([
      {
        path: 'match.value.1',
        message: 'must be a CIDR range like "10.0.0.0/8" or "2001:db8::/32" (address/prefix)',
      },
      { path: 'match.value.2', message: '"x" is not an IPv4 or IPv6 address' },
      { path: 'match.value.3', message: 'the prefix length must be 0–32 for IPv4' },
      { path: 'match.value.4', message: 'must be a string, got a number' },
    ]);
    expect(errorsOf({ field: 'arguments.host', op: 'cidr', value: '::/129' })).toEqual([
      { path: 'match.value', message: 'the prefix length must be 0–128 for IPv6' },
    ]);
    expect(errorsOf({ field: 'arguments.host', op: 'cidr', value: [] })).toEqual([
      { path: 'match.value', message: 'must hold at least one range' },
    ]);
    expect(errorsOf({ field: 'arguments.host', op: 'cidr', value: { a: 1 } })).toEqual([
      { path: 'match.value', message: 'op "cidr" needs a CIDR range or an array of them, got an object' },
    ]);
    expect(errorsOf({ field: 'arguments.ip', op: 'cidr', value: ['0.0.0.0/0', '::/0'] })).toEqual([]);
  });

  test('its text in reasons, rule texts and the listing', () => {
    const match: MatchNode = {
      all: [
        { field: 'tool.name', op: 'eq', value: 'http_get' },
        { field: 'arguments.host', op: 'cidr', value: ['169.254.0.0/16'] },
      ],
    };
    const text = 'tool.name = "http_get" and arguments.host is in ["169.254.0.0/16"] (CIDR)';
    expect(reasonOf(match, { tool: { name: 'http_get' }, arguments: { host: '169.254.169.254' } })).toBe(
      text,
    );
    expect(describeMatch(match)).toBe(text);
    expect(compilePolicy(policy(match)).description).toBe(text);
    expect(listOperators().find((o) => o.name === 'cidr')).toMatchObject({
      operand: 'list',
      valueRequired: true,
    });
  });
});
