import type { MatchNode } from '@agent-warden/contracts';
import { compilePolicy, createEngine, describeMatch, listOperators, validatePolicy } from '../../src';
import { holds, onArg, policy, reasonOf } from '../helpers';

const errorsOf = (match: unknown) => {
  const r = validatePolicy({ name: 'x', decision: 'block', match });
  return r.ok ? [] : r.errors;
};

describe('startsWith', () => {
  test.each<[string, string, unknown, boolean]>([
    ['prefix', '/etc/', '/etc/passwd', true],
    ['whole string', '/etc/', '/etc/', true],
    ['shorter than the prefix', '/etc/', '/etc', false],
    ['prefix elsewhere', '/etc/', '/home/etc/x', false],
    ['case-sensitive', 'http://', 'HTTP://example.com', false],
    ['no wildcards: * is literal', 'delete_*', 'delete_file', false],
    ['literal * matches itself', 'delete_*', 'delete_*x', true],
    ['number never matches', '1', 12, false],
    ['array never matches', 'a', ['abc'], false],
    ['missing', 'a', undefined, false],
    ['null', 'a', null, false],
  ])('%s', (_label, prefix, value, expected) => {
    expect(holds(onArg('startsWith', prefix), { arguments: { v: value } })).toBe(expected);
  });

  test('the value must be a non-empty string, reported at its path', () => {
    expect(errorsOf({ all: [{ field: 'arguments.url', op: 'startsWith', value: 5 }] })).toEqual([
      { path: 'match.all.0.value', message: 'op "startsWith" needs a string, got a number' },
    ]);
    expect(errorsOf({ field: 'arguments.url', op: 'startsWith', value: '' })).toEqual([
      { path: 'match.value', message: 'must not be empty (an empty prefix matches every string)' },
    ]);
    expect(errorsOf({ field: 'arguments.url', op: 'startsWith' })).toEqual([
      { path: 'match.value', message: 'is required for op "startsWith"' },
    ]);
    expect(errorsOf({ field: 'arguments.url', op: 'startsWith', value: 'http://' })).toEqual([]);
  });

  test('its text in reasons, rule texts and the listing', () => {
    const match: MatchNode = {
      all: [
        { field: 'tool.name', op: 'eq', value: 'fetch' },
        { field: 'arguments.url', op: 'startsWith', value: 'http://' },
      ],
    };
    const text = 'tool.name = "fetch" and arguments.url starts with "http://"';
    expect(reasonOf(match, { tool: { name: 'fetch' }, arguments: { url: 'http://x.test/' } })).toBe(text);
    expect(describeMatch(match)).toBe(text);
    expect(compilePolicy(policy(match)).description).toBe(text);
    expect(listOperators().find((o) => o.name === 'startsWith')).toEqual({
      name: 'startsWith',
      operand: 'string',
      valueRequired: true,
      operandText: 'non-empty string',
      summary: 'is a string beginning with the value (case-sensitive, no wildcards)',
      example: {
        field: 'arguments.path',
        op: 'startsWith',
        value: '/etc/',
        text: 'arguments.path starts with "/etc/"',
      },
    });
  });

  test('on tool.name it scopes a policy in the tool index, with the same results as without', () => {
    const p = policy({ field: 'tool.name', op: 'startsWith', value: 'delete_' }, { decision: 'warn' });
    expect(compilePolicy(p).mayMatchTool('delete_file')).toBe(true);
    expect(compilePolicy(p).mayMatchTool('read_file')).toBe(false);
    for (const indexByTool of [true, false]) {
      const engine = createEngine([p], { indexByTool });
      expect(engine.evaluate({ tool: { name: 'delete_user' } }, 'enforce').policyDecision).toBe('warn');
      expect(engine.evaluate({ tool: { name: 'undelete_user' } }, 'enforce').policyDecision).toBe('allow');
    }
  });
});
