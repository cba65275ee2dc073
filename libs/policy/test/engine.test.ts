import type { Decision, Mode } from '@agent-warden/contracts';
import {
  compilePolicy,
  createEngine,
  PolicyCompileError,
  type EvaluationInput,
  type StoredPolicy,
} from '../src';
import { forTool, policy } from './helpers';

const DECISIONS: Decision[] = ['allow', 'warn', 'require_approval', 'block'];
const bash: EvaluationInput = { tool: { name: 'bash' }, arguments: { command: 'ls' } };

describe('policy decision', () => {
  // Every ordered pair of distinct decisions: the more severe one wins, whatever the order given.
  const rank = (d: Decision) => DECISIONS.indexOf(d);
  const pairs = DECISIONS.flatMap((a) => DECISIONS.filter((b) => b !== a).map((b) => [a, b] as const));
  test.each(pairs)('%s vs %s', (a, b) => {
    const engine = createEngine([forTool('bash', a), forTool('bash', b)]);
    const r = engine.evaluate(bash, 'enforce');
    const expected = rank(a) > rank(b) ? a : b;
    expect(r.policyDecision).toBe(expected);
    expect(r.matchedGuardrails.map((m) => m.decision)).toEqual([expected, expected === a ? b : a]);
  });

  test('all four at once: block wins, guardrails listed most severe first', () => {
    const engine = createEngine(DECISIONS.map((d) => forTool('bash', d)));
    const r = engine.evaluate(bash, 'enforce');
    expect(r.policyDecision).toBe('block');
    expect(r.matchedGuardrails.map((m) => m.decision)).toEqual([
      'block',
      'require_approval',
      'warn',
      'allow',
    ]);
    expect(r.wouldBlock).toBe(true);
    expect(r.wouldRequireApproval).toBe(false);
    expect(r.approval).toBeUndefined();
  });

  test('same severity: sorted by name', () => {
    const engine = createEngine([
      forTool('bash', 'warn', { name: 'zeta' }),
      forTool('bash', 'warn', { name: 'alpha' }),
      forTool('bash', 'warn', { name: 'Mid' }),
    ]);
    expect(engine.evaluate(bash, 'enforce').matchedGuardrails.map((m) => m.name)).toEqual([
      'Mid',
      'alpha',
      'zeta',
    ]);
  });

  test('matched guardrails carry id, name, version, decision and reason', () => {
    const engine = createEngine([forTool('bash', 'warn', { id: 'pol-7', name: 'shell', version: 4 })]);
    expect(engine.evaluate(bash, 'monitor').matchedGuardrails).toEqual([
      { policyId: 'pol-7', name: 'shell', version: 4, decision: 'warn', reason: 'tool.name = "bash"' },
    ]);
  });

  test('an explicit allow policy that matches is still reported', () => {
    const engine = createEngine([forTool('bash', 'allow')], { defaultDecision: 'block' });
    const r = engine.evaluate(bash, 'enforce');
    expect(r.policyDecision).toBe('allow');
    expect(r.matchedGuardrails).toHaveLength(1);
  });
});

describe('default decision', () => {
  test('allow unless set', () => {
    const r = createEngine([forTool('send_money', 'block')]).evaluate(bash, 'enforce');
    expect(r).toEqual({
      policyDecision: 'allow',
      effectiveDecision: 'allow',
      matchedGuardrails: [],
      wouldBlock: false,
      wouldRequireApproval: false,
    });
  });

  test.each(DECISIONS)('default %s applies when nothing matches', (d) => {
    const r = createEngine([], { defaultDecision: d }).evaluate(bash, 'enforce');
    expect(r.policyDecision).toBe(d);
    expect(r.effectiveDecision).toBe(d);
    expect(r.wouldBlock).toBe(d === 'block');
    expect(r.wouldRequireApproval).toBe(d === 'require_approval');
    expect(r.matchedGuardrails).toEqual([]);
  });

  test('the default is not mixed with matches: a matched warn beats a default block', () => {
    const r = createEngine([forTool('bash', 'warn')], { defaultDecision: 'block' }).evaluate(bash, 'enforce');
    expect(r.policyDecision).toBe('warn');
  });

  test('default require_approval gives default approval settings without a policy id', () => {
    const r = createEngine([], { defaultDecision: 'require_approval' }).evaluate(bash, 'enforce');
    expect(r.approval).toEqual({ timeoutSeconds: 300, onTimeout: 'deny' });
  });
});

describe('modes (docs/architecture.md#guard-decision)', () => {
  const expected: Record<Mode, Record<Decision, Decision>> = {
    enforce: { allow: 'allow', warn: 'warn', require_approval: 'require_approval', block: 'block' },
    monitor: { allow: 'allow', warn: 'warn', require_approval: 'warn', block: 'warn' },
  };
  const cases = (['enforce', 'monitor'] as Mode[]).flatMap((mode) =>
    DECISIONS.map((d) => [mode, d] as const),
  );
  test.each(cases)('%s mode, policy decision %s', (mode, d) => {
    const r = createEngine([forTool('bash', d)]).evaluate(bash, mode);
    expect(r.policyDecision).toBe(d);
    expect(r.effectiveDecision).toBe(expected[mode][d]);
    // would* describe the policy decision whatever the mode.
    expect(r.wouldBlock).toBe(d === 'block');
    expect(r.wouldRequireApproval).toBe(d === 'require_approval');
  });

  test('monitor maps the default decision too', () => {
    expect(createEngine([], { defaultDecision: 'block' }).evaluate(bash, 'monitor').effectiveDecision).toBe(
      'warn',
    );
  });
});

describe('enabled', () => {
  test('disabled policies are ignored and not counted', () => {
    const engine = createEngine([forTool('bash', 'block', { enabled: false }), forTool('bash', 'warn')]);
    expect(engine.policies).toBe(1);
    const r = engine.evaluate(bash, 'enforce');
    expect(r.policyDecision).toBe('warn');
    expect(r.matchedGuardrails).toHaveLength(1);
  });

  test('a disabled policy is not even compiled (an invalid draft cannot break the engine)', () => {
    const broken = policy({ field: 'arguments.x', op: 'regex', value: '(' }, { enabled: false });
    expect(createEngine([broken]).policies).toBe(0);
  });

  test('an invalid enabled policy throws PolicyCompileError naming it', () => {
    const broken = policy({ field: 'arguments.x', op: 'regex', value: '(' }, { id: 'bad-1' });
    expect(() => createEngine([broken])).toThrow(PolicyCompileError);
    try {
      createEngine([broken]);
    } catch (err) {
      expect((err as PolicyCompileError).policyId).toBe('bad-1');
      expect((err as PolicyCompileError).issues[0]?.path).toBe('match.value');
    }
  });
});

describe('approval settings', () => {
  const ra = (over: Partial<StoredPolicy>) => forTool('bash', 'require_approval', over);

  test('defaults: 300 s, deny', () => {
    const r = createEngine([ra({ id: 'a' })]).evaluate(bash, 'enforce');
    expect(r.approval).toEqual({ timeoutSeconds: 300, onTimeout: 'deny', policyId: 'a' });
  });

  test('a null approval (nullable JSON column) or odd stored values fall back to the defaults, failing closed', () => {
    const odd = { timeoutSeconds: -5, onTimeout: 'maybe' } as unknown as StoredPolicy['approval'];
    expect(createEngine([ra({ id: 'n', approval: null })]).evaluate(bash, 'enforce').approval).toEqual({
      timeoutSeconds: 300,
      onTimeout: 'deny',
      policyId: 'n',
    });
    expect(createEngine([ra({ id: 'o', approval: odd })]).evaluate(bash, 'enforce').approval).toEqual({
      timeoutSeconds: 300,
      onTimeout: 'deny',
      policyId: 'o',
    });
  });

  test('the policy settings are used', () => {
    const r = createEngine([
      ra({ id: 'a', approval: { timeoutSeconds: 60, onTimeout: 'approve' } }),
    ]).evaluate(bash, 'enforce');
    expect(r.approval).toEqual({ timeoutSeconds: 60, onTimeout: 'approve', policyId: 'a' });
  });

  test('several: the shortest timeout, and its policy id', () => {
    const r = createEngine([
      ra({ id: 'long', name: 'a', approval: { timeoutSeconds: 900, onTimeout: 'approve' } }),
      ra({ id: 'short', name: 'b', approval: { timeoutSeconds: 120, onTimeout: 'approve' } }),
      ra({ id: 'dflt', name: 'c' }),
    ]).evaluate(bash, 'enforce');
    expect(r.approval?.timeoutSeconds).toBe(120);
    expect(r.approval?.policyId).toBe('short');
  });

  test('fail closed: deny if any matched require_approval policy says deny', () => {
    const r = createEngine([
      ra({ id: 'short', approval: { timeoutSeconds: 60, onTimeout: 'approve' } }),
      ra({ id: 'long', approval: { timeoutSeconds: 600, onTimeout: 'deny' } }),
    ]).evaluate(bash, 'enforce');
    expect(r.approval).toEqual({ timeoutSeconds: 60, onTimeout: 'deny', policyId: 'short' });
  });

  test('equal timeouts: the deny policy is named', () => {
    const r = createEngine([
      ra({ id: 'x', name: 'a', approval: { timeoutSeconds: 60, onTimeout: 'approve' } }),
      ra({ id: 'y', name: 'b', approval: { timeoutSeconds: 60, onTimeout: 'deny' } }),
    ]).evaluate(bash, 'enforce');
    expect(r.approval).toEqual({ timeoutSeconds: 60, onTimeout: 'deny', policyId: 'y' });
  });

  test('only policies that matched count', () => {
    const r = createEngine([
      ra({ id: 'match', approval: { timeoutSeconds: 600 } }),
      forTool('send_money', 'require_approval', { id: 'other', approval: { timeoutSeconds: 5 } }),
    ]).evaluate(bash, 'enforce');
    expect(r.approval?.policyId).toBe('match');
  });

  test('no approval when block wins, or for warn / allow', () => {
    expect(
      createEngine([ra({}), forTool('bash', 'block')]).evaluate(bash, 'enforce').approval,
    ).toBeUndefined();
    expect(createEngine([forTool('bash', 'warn')]).evaluate(bash, 'enforce').approval).toBeUndefined();
  });

  test('approval settings are reported in monitor mode too (the gateway decides whether to create one)', () => {
    const r = createEngine([ra({ id: 'a' })]).evaluate(bash, 'monitor');
    expect(r.effectiveDecision).toBe('warn');
    expect(r.approval?.policyId).toBe('a');
  });
});

describe('tool index', () => {
  const set: StoredPolicy[] = [
    forTool('bash', 'warn'),
    policy(
      { field: 'tool.name', op: 'in', value: ['send_money', 'schedule_transaction'] },
      { decision: 'require_approval' },
    ),
    policy({ field: 'tool.name', op: 'glob', value: 'delete_*' }),
    policy({ field: 'riskLevel', op: 'gte', value: 'high' }, { decision: 'warn' }),
    policy({
      any: [
        { field: 'tool.name', op: 'eq', value: 'bash' },
        { field: 'tool.name', op: 'eq', value: 'send_money' },
      ],
    }),
    policy({
      all: [
        { field: 'tool.name', op: 'eq', value: 'bash' },
        { field: 'arguments.command', op: 'contains', value: 'rm' },
      ],
    }),
    policy({ not: { field: 'tool.name', op: 'in', value: ['think', 'calculate'] } }, { decision: 'allow' }),
    policy({ field: 'tool.name', op: 'exists', value: false }, { decision: 'warn' }),
    policy({ field: 'tool.name', op: 'in', value: ['calculate', 42] }, { decision: 'warn' }),
  ];
  const inputs: EvaluationInput[] = [
    {},
    { tool: { name: 'bash' }, arguments: { command: 'rm x' } },
    { tool: { name: 'bash' }, riskLevel: 'critical' },
    { tool: { name: 'send_money' } },
    { tool: { name: 'schedule_transaction' }, riskLevel: 'low' },
    { tool: { name: 'delete_file' } },
    { tool: { name: 'think' } },
    { tool: { name: 'unknown_tool' }, riskLevel: 'high' },
    { riskLevel: 'high' },
    { tool: { name: 'calculate' } },
    { tool: { name: 42 } } as unknown as EvaluationInput,
  ];

  test.each(inputs)('indexed and unindexed engines agree on %j', (input) => {
    const indexed = createEngine(set);
    const flat = createEngine(set, { indexByTool: false });
    for (const mode of ['enforce', 'monitor'] as Mode[])
      expect(indexed.evaluate(input, mode)).toEqual(flat.evaluate(input, mode));
  });
});

describe('update (rebuild on change)', () => {
  test('a new engine; the old one is unchanged', () => {
    const v1 = createEngine([forTool('bash', 'warn', { id: 'x' })]);
    const v2 = v1.update([forTool('bash', 'block', { id: 'x', version: 2 })]);
    expect(v1.evaluate(bash, 'enforce').policyDecision).toBe('warn');
    expect(v2.evaluate(bash, 'enforce').policyDecision).toBe('block');
    expect(v2.evaluate(bash, 'enforce').matchedGuardrails[0]?.version).toBe(2);
  });

  test('unchanged policies keep their compiled form; changed ones are recompiled', () => {
    const a = forTool('bash', 'warn', { id: 'a' });
    const b = forTool('send_money', 'block', { id: 'b' });
    const v1 = createEngine([a, b]);
    const v2 = v1.update([{ ...a }, { ...b, version: 2, decision: 'require_approval' }]);
    const find = (e: typeof v1, id: string) => e.compiled.find((p) => p.id === id);
    expect(find(v2, 'a')).toBe(find(v1, 'a'));
    expect(find(v2, 'b')).not.toBe(find(v1, 'b'));
    expect(find(v2, 'b')?.decision).toBe('require_approval');
  });

  test('options carry over unless given', () => {
    const v1 = createEngine([], { defaultDecision: 'warn' });
    expect(v1.update([]).defaultDecision).toBe('warn');
    expect(v1.update([], { defaultDecision: 'block' }).defaultDecision).toBe('block');
  });

  test('a failing update throws and leaves the current engine usable', () => {
    const v1 = createEngine([forTool('bash', 'warn')]);
    expect(() => v1.update([policy({ field: 'nope', op: 'eq', value: 1 } as never)])).toThrow(
      PolicyCompileError,
    );
    expect(v1.evaluate(bash, 'enforce').policyDecision).toBe('warn');
  });

  test('engines and compiled policies are frozen', () => {
    const e = createEngine([forTool('bash', 'warn')]);
    expect(Object.isFrozen(e)).toBe(true);
    expect(Object.isFrozen(e.compiled)).toBe(true);
    expect(Object.isFrozen(compilePolicy(forTool('bash', 'warn')))).toBe(true);
  });
});

describe('robustness', () => {
  test('odd inputs never throw', () => {
    const engine = createEngine([
      policy({ field: 'arguments.a.b.0', op: 'regex', value: 'x' }),
      policy({ field: 'riskLevel', op: 'gte', value: 'low' }),
      policy({ field: 'tool.name', op: 'glob', value: 'a*' }),
    ]);
    const odd = [
      {},
      { tool: {} },
      { tool: { name: 42 } },
      { arguments: [] },
      { arguments: 'str' },
      { arguments: { a: null } },
      { arguments: { a: { b: 'not-an-array' } } },
      { riskLevel: 7 },
    ] as unknown as EvaluationInput[];
    for (const input of odd) expect(() => engine.evaluate(input, 'enforce')).not.toThrow();
  });
});
