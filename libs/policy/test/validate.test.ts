import { MAX_MATCH_DEPTH, MAX_REGEX_LENGTH, OPERATOR_NAMES, validatePolicy } from '../src';

const base = { name: 'test policy', decision: 'block' };
const withMatch = (match: unknown) => ({ ...base, match });
const tool = { field: 'tool.name', op: 'eq', value: 'bash' };

/** The errors of an invalid policy (fails the test when it validates). */
function errorsOf(input: unknown) {
  const r = validatePolicy(input);
  if (r.ok) throw new Error('expected the policy to be invalid');
  return r.errors;
}

describe('valid policies', () => {
  test('defaults are applied', () => {
    const r = validatePolicy({ ...withMatch(tool), decision: 'require_approval', approval: {} });
    expect(r).toEqual({
      ok: true,
      policy: {
        ...withMatch(tool),
        decision: 'require_approval',
        enabled: true,
        approval: { timeoutSeconds: 300, onTimeout: 'deny' },
      },
    });
  });

  test.each([
    ['eq string', { field: 'tool.name', op: 'eq', value: 'bash' }],
    ['eq number', { field: 'arguments.amount', op: 'eq', value: 5 }],
    ['eq boolean', { field: 'arguments.recurring', op: 'eq', value: true }],
    ['in mixed', { field: 'arguments.x', op: 'in', value: ['a', 1, false] }],
    ['glob', { field: 'tool.name', op: 'glob', value: 'delete_[a-z]*' }],
    ['regex', { field: 'arguments.command', op: 'regex', value: 'rm\\s+-rf\\s+/' }],
    [
      'regex with a bounded repeat of a repeat',
      { field: 'arguments.x', op: 'regex', value: '(\\w+\\s?){1,5}' },
    ],
    ['regex with a single quantified group', { field: 'arguments.x', op: 'regex', value: '(ab)+c*' }],
    ['gte number', { field: 'arguments.amount', op: 'gte', value: 1000 }],
    ['lte risk', { field: 'riskLevel', op: 'lte', value: 'medium' }],
    ['risk in names', { field: 'riskLevel', op: 'in', value: ['high', 'critical'] }],
    ['exists bare', { field: 'arguments.x', op: 'exists' }],
    ['exists false', { field: 'arguments.x', op: 'exists', value: false }],
    ['contains', { field: 'arguments.recipients', op: 'contains', value: 'a@x.com' }],
    ['deep argument path with index', { field: 'arguments.items.0.price', op: 'gte', value: 1 }],
    ['nesting', { all: [tool, { any: [{ not: tool }, tool] }] }],
  ])('%s', (_label, match) => {
    expect(validatePolicy(withMatch(match)).ok).toBe(true);
  });
});

describe('errors with exact paths', () => {
  test('bad regex names the path and the RegExp error', () => {
    expect(
      errorsOf(withMatch({ all: [tool, { field: 'arguments.command', op: 'regex', value: 'rm (-rf' }] })),
    ).toEqual([
      { path: 'match.all.1.value', message: 'Invalid regular expression: /rm (-rf/: Unterminated group' },
    ]);
  });

  test('unknown field lists the allowed ones', () => {
    expect(errorsOf(withMatch({ any: [tool, { field: 'tool.id', op: 'eq', value: 'x' }] }))).toEqual([
      {
        path: 'match.any.1.field',
        message:
          'unknown field "tool.id"; allowed: action.type, action.name, resource.type, resource.environment, tool.name, riskLevel, agent.key, provenance.tainted, provenance.instructed, session.untrustedInstructions, arguments.<path> or provenance.arguments.<path>',
      },
    ]);
  });

  test.each([
    ['arguments alone', 'arguments'],
    ['empty segment', 'arguments..x'],
    ['trailing dot', 'arguments.x.'],
    ['missing field', undefined],
  ])('bad field: %s', (_label, field) => {
    const [err] = errorsOf(withMatch({ not: { field, op: 'exists' } }));
    expect(err?.path).toBe('match.not.field');
  });

  test('unknown op lists the allowed ones', () => {
    // Every operator of the registry, in name order (so an added operator needs no change here).
    expect(errorsOf(withMatch({ field: 'tool.name', op: 'beginsWith', value: 'x' }))).toEqual([
      { path: 'match.op', message: `unknown op "beginsWith"; allowed: ${OPERATOR_NAMES.join(', ')}` },
    ]);
    expect(OPERATOR_NAMES).toEqual(
      expect.arrayContaining(['contains', 'eq', 'exists', 'glob', 'in', 'regex']),
    );
  });

  test.each<[string, unknown, string, string]>([
    [
      'in needs an array',
      { field: 'tool.name', op: 'in', value: 'bash' },
      'match.value',
      'op "in" needs an array of strings, numbers or booleans, got a string',
    ],
    [
      'in must not be empty',
      { field: 'tool.name', op: 'in', value: [] },
      'match.value',
      'must hold at least one value',
    ],
    [
      'in members are primitives',
      { field: 'tool.name', op: 'in', value: ['a', { b: 1 }] },
      'match.value.1',
      'must be a string, number or boolean, got an object',
    ],
    [
      'gte needs a number',
      { field: 'arguments.amount', op: 'gte', value: '1000' },
      'match.value',
      'op "gte" needs a finite number, got a string',
    ],
    [
      'lte needs a finite number',
      { field: 'arguments.amount', op: 'lte', value: null },
      'match.value',
      'op "lte" needs a finite number, got null',
    ],
    [
      'gte on riskLevel needs a name',
      { field: 'riskLevel', op: 'gte', value: 2 },
      'match.value',
      'op "gte" on riskLevel must be a risk level: low, medium, high, critical',
    ],
    [
      'gte on riskLevel, unknown name',
      { field: 'riskLevel', op: 'gte', value: 'severe' },
      'match.value',
      'op "gte" on riskLevel must be a risk level: low, medium, high, critical',
    ],
    [
      'eq on riskLevel, unknown name',
      { field: 'riskLevel', op: 'eq', value: 'hgih' },
      'match.value',
      'must be a risk level: low, medium, high, critical',
    ],
    [
      'in on riskLevel, unknown name',
      { field: 'riskLevel', op: 'in', value: ['high', 'urgent'] },
      'match.value.1',
      'must be a risk level: low, medium, high, critical',
    ],
    [
      'glob needs a string',
      { field: 'tool.name', op: 'glob', value: ['a*'] },
      'match.value',
      'op "glob" needs a string pattern, got an array',
    ],
    [
      'glob with an unclosed class',
      { field: 'tool.name', op: 'glob', value: 'a[bc' },
      'match.value',
      'invalid glob: glob has an unclosed "[" at offset 1',
    ],
    [
      'glob with a trailing escape',
      { field: 'tool.name', op: 'glob', value: 'a\\' },
      'match.value',
      'invalid glob: glob ends with an unfinished escape "\\"',
    ],
    [
      'regex needs a string',
      { field: 'arguments.c', op: 'regex', value: 5 },
      'match.value',
      'op "regex" needs a string pattern, got a number',
    ],
    [
      'regex must not be empty',
      { field: 'arguments.c', op: 'regex', value: '' },
      'match.value',
      'must not be empty (an empty pattern matches every string)',
    ],
    [
      'eq needs a primitive',
      { field: 'tool.name', op: 'eq', value: ['bash'] },
      'match.value',
      'op "eq" needs a string, number or boolean, got an array',
    ],
    ['eq needs a value', { field: 'tool.name', op: 'eq' }, 'match.value', 'is required for op "eq"'],
    [
      'contains needs a primitive',
      { field: 'arguments.to', op: 'contains', value: { a: 1 } },
      'match.value',
      'op "contains" needs a string, number or boolean, got an object',
    ],
    [
      'contains must not be empty',
      { field: 'arguments.to', op: 'contains', value: '' },
      'match.value',
      'must not be empty (an empty substring matches every string)',
    ],
    [
      'exists takes a boolean',
      { field: 'arguments.to', op: 'exists', value: 'yes' },
      'match.value',
      'op "exists" takes an optional boolean, got a string',
    ],
    [
      'unknown key in a condition',
      { field: 'tool.name', op: 'eq', value: 'x', negate: true },
      'match.negate',
      'unknown key "negate"; a condition has field, op and value',
    ],
  ])('%s', (_label, match, path, message) => {
    expect(errorsOf(withMatch(match))).toEqual([{ path, message }]);
  });

  test('regex longer than the limit', () => {
    const [err] = errorsOf(
      withMatch({ field: 'arguments.c', op: 'regex', value: 'a'.repeat(MAX_REGEX_LENGTH + 1) }),
    );
    expect(err).toEqual({
      path: 'match.value',
      message: `pattern is 1001 characters; at most ${MAX_REGEX_LENGTH} are allowed`,
    });
    expect(
      validatePolicy(withMatch({ field: 'arguments.c', op: 'regex', value: 'a'.repeat(MAX_REGEX_LENGTH) }))
        .ok,
    ).toBe(true);
  });

  test.each([
    '(a+)+$',
    '(a*)*b',
    '(\\w+\\s*)+$',
    '(?:x+y?)+',
    '(a+){2,}',
    '((ab)*c)*',
    '([a-z]+)*=',
    '(a+)+?',
  ])('nested quantifier %s is rejected', (pattern) => {
    const [err] = errorsOf(withMatch({ field: 'arguments.c', op: 'regex', value: pattern }));
    expect(err?.path).toBe('match.value');
    expect(err?.message).toMatch(/^nested quantifier/);
  });

  test.each(['\\(a+\\)+', '[(a+)]+', '(a|b)+', '(ab)+(cd)*', 'a+b+c*', '(a+){1,3}', '(?:foo)?bar+'])(
    'no false alarm on %s',
    (pattern) => {
      expect(validatePolicy(withMatch({ field: 'arguments.c', op: 'regex', value: pattern })).ok).toBe(true);
    },
  );

  test('empty all / any', () => {
    expect(errorsOf(withMatch({ all: [] }))).toEqual([
      { path: 'match.all', message: 'must hold at least one match node' },
    ]);
    expect(errorsOf(withMatch({ all: [tool, { any: [] }] }))).toEqual([
      { path: 'match.all.1.any', message: 'must hold at least one match node' },
    ]);
  });

  test('all / any must be arrays; a node is one kind', () => {
    expect(errorsOf(withMatch({ any: tool }))).toEqual([
      { path: 'match.any', message: 'must be an array of match nodes, got an object' },
    ]);
    expect(errorsOf(withMatch({ all: [tool], not: tool }))).toEqual([
      {
        path: 'match',
        message: 'a node holds exactly one of all, any or not (or is a condition); found keys all, not',
      },
    ]);
    expect(errorsOf(withMatch({ all: [tool, 'tool.name = bash'] }))).toEqual([
      {
        path: 'match.all.1',
        message:
          'must be {all: [...]}, {any: [...]}, {not: {...}} or a condition {field, op, value}; got a string',
      },
    ]);
  });

  test('several errors are all reported, deep paths included', () => {
    const errors = errorsOf(
      withMatch({
        all: [
          { field: 'tool.name', op: 'in', value: 'bash' },
          {
            any: [
              { not: { field: 'arguments.c', op: 'regex', value: '[' } },
              { field: 'bogus', op: 'eq', value: 1 },
            ],
          },
        ],
      }),
    );
    expect(errors.map((e) => e.path)).toEqual([
      'match.all.0.value',
      'match.all.1.any.0.not.value',
      'match.all.1.any.1.field',
    ]);
  });

  test('nesting depth is limited', () => {
    let deep: unknown = tool;
    for (let k = 0; k < MAX_MATCH_DEPTH; k++) deep = { not: deep };
    const [err] = errorsOf(withMatch(deep));
    expect(err?.message).toBe(`match tree is nested deeper than ${MAX_MATCH_DEPTH} levels`);
    expect(err?.path).toBe(`match${'.not'.repeat(MAX_MATCH_DEPTH)}`);
  });

  test('node count is limited', () => {
    const many = Array.from({ length: 1001 }, () => tool);
    expect(errorsOf(withMatch({ any: many }))).toEqual([
      { path: 'match', message: 'match tree has more than 1000 nodes' },
    ]);
  });

  test('schema errors outside the match tree keep zod paths', () => {
    const errors = errorsOf({ name: '', decision: 'deny', match: tool, approval: { timeoutSeconds: 0 } });
    expect(errors.map((e) => e.path).sort()).toEqual(['approval.timeoutSeconds', 'decision', 'name']);
  });

  test('missing match and non-object bodies', () => {
    expect(errorsOf(base).map((e) => e.path)).toEqual(['match']);
    expect(errorsOf(null)).toEqual([{ path: '', message: 'must be an object, got null' }]);
    expect(errorsOf([])).toEqual([{ path: '', message: 'must be an object, got an array' }]);
  });

  test('match and schema errors together', () => {
    const errors = errorsOf({ ...withMatch({ field: 'x', op: 'eq', value: 1 }), decision: 'nope' });
    expect(errors.map((e) => e.path).sort()).toEqual(['decision', 'match.field']);
  });
});
