import type { MatchNode } from '@agent-warden/contracts';
import { compilePolicy, createEngine, describeMatch, validatePolicy, type EvaluationInput } from '../src';
import { holds, policy, reasonOf } from './helpers';

/** Data-flow fields (docs/guardrails.md "Data-flow conditions", docs/provenance.md). */

const READ = '0193a0c0-0000-7000-8000-000000000001';
const WEB = '0193a0c0-0000-7000-8000-000000000002';

/** A payment whose recipient came from a file the model read, which carried instructions. */
const injected: EvaluationInput = {
  tool: { name: 'send_money' },
  arguments: { recipient: 'GB29NWBK60161331926819', amount: 100, subject: 'rent' },
  provenance: {
    arguments: [
      {
        path: 'recipient',
        origin: 'tool',
        tainted: true,
        instructed: true,
        sources: [{ toolName: 'read_file', toolCallId: READ, instructions: true }],
      },
      { path: 'amount', origin: 'user', tainted: false, instructed: false, sources: [] },
      { path: 'subject', origin: 'none', tainted: false, instructed: false, sources: [] },
    ],
    session: {
      untrustedInstructions: 2,
      lastInstruction: { toolName: 'get_webpage', toolCallId: WEB, rules: ['override-earlier-instructions'] },
    },
    truncated: false,
  },
};

/** The same payment, typed by the user. */
const typed: EvaluationInput = {
  tool: { name: 'send_money' },
  arguments: { recipient: 'GB29NWBK60161331926819', amount: 100 },
  provenance: {
    arguments: [
      { path: 'recipient', origin: 'user', tainted: false, instructed: false, sources: [] },
      { path: 'amount', origin: 'user', tainted: false, instructed: false, sources: [] },
    ],
    session: { untrustedInstructions: 0 },
  },
};

/** No provenance at all (an older client). */
const bare: EvaluationInput = { tool: { name: 'send_money' }, arguments: { recipient: 'x' } };

const leaf = (field: string, op: string, value?: unknown) => ({ field, op, value }) as MatchNode;

describe('fields', () => {
  test.each<[string, MatchNode, boolean, boolean, boolean]>([
    ['tainted >= 1', leaf('provenance.tainted', 'gte', 1), true, false, false],
    ['tainted = 0', leaf('provenance.tainted', 'eq', 0), false, true, false],
    ['tainted exists', leaf('provenance.tainted', 'exists'), true, true, false],
    ['tainted does not exist', leaf('provenance.tainted', 'exists', false), false, false, true],
    ['instructed >= 1', leaf('provenance.instructed', 'gte', 1), true, false, false],
    ['instructed lte 0', leaf('provenance.instructed', 'lte', 0), false, true, false],
    ['session >= 1', leaf('session.untrustedInstructions', 'gte', 1), true, false, false],
    ['session in [2, 3]', leaf('session.untrustedInstructions', 'in', [2, 3]), true, false, false],
    ['session exists', leaf('session.untrustedInstructions', 'exists'), true, true, false],
    ['recipient = tool', leaf('provenance.arguments.recipient', 'eq', 'tool'), true, false, false],
    ['recipient = user', leaf('provenance.arguments.recipient', 'eq', 'user'), false, true, false],
    [
      'recipient in [tool, both]',
      leaf('provenance.arguments.recipient', 'in', ['tool', 'both']),
      true,
      false,
      false,
    ],
    ['recipient exists', leaf('provenance.arguments.recipient', 'exists'), true, true, false],
    ['unreported leaf exists', leaf('provenance.arguments.iban', 'exists'), false, false, false],
    ['unreported leaf does not exist', leaf('provenance.arguments.iban', 'exists', false), true, true, true],
    [
      'not (recipient in [user, both])',
      { not: leaf('provenance.arguments.recipient', 'in', ['user', 'both']) },
      true,
      false,
      true,
    ],
  ])('%s: injected %s, typed %s, no provenance %s', (_name, match, onInjected, onTyped, onBare) => {
    expect([holds(match, injected), holds(match, typed), holds(match, bare)]).toEqual([
      onInjected,
      onTyped,
      onBare,
    ]);
  });

  test('a nested argument path and the first entry of a repeated path', () => {
    const input: EvaluationInput = {
      provenance: {
        arguments: [
          { path: 'event.participants.1', origin: 'both', tainted: true },
          { path: 'event.participants.1', origin: 'user' },
        ],
      },
    };
    expect(holds(leaf('provenance.arguments.event.participants.1', 'eq', 'both'), input)).toBe(true);
    expect(holds(leaf('provenance.tainted', 'eq', 1), input)).toBe(true);
  });

  test('provenance without a session part counts 0 instructions', () => {
    const input: EvaluationInput = { provenance: { arguments: [] } };
    expect(holds(leaf('session.untrustedInstructions', 'eq', 0), input)).toBe(true);
    expect(holds(leaf('provenance.tainted', 'eq', 0), input)).toBe(true);
  });

  test('stored history of any shape never throws and never matches by accident', () => {
    const odd = [
      { provenance: null },
      { provenance: 'tainted' },
      { provenance: { arguments: 'x', session: 'y' } },
      { provenance: { arguments: [null, 3, { path: 7, origin: 9, tainted: 'yes' }] } },
    ] as unknown as EvaluationInput[];
    const p = compilePolicy(
      policy({
        any: [
          leaf('provenance.tainted', 'gte', 1),
          leaf('provenance.instructed', 'gte', 1),
          leaf('session.untrustedInstructions', 'gte', 1),
          leaf('provenance.arguments.7', 'exists'),
        ],
      }),
    );
    for (const input of odd) expect(p.matches(input)).toBe(false);
  });

  test('a count is computed once per provenance object, whatever the number of policies', () => {
    const policies = Array.from({ length: 50 }, (_, k) =>
      policy({
        all: [
          { field: 'tool.name', op: 'eq', value: 'send_money' },
          { field: 'provenance.tainted', op: 'gte', value: (k % 3) + 1 },
        ],
      }),
    );
    const engine = createEngine(policies);
    // Only policies with a bound of 1 match one tainted leaf.
    expect(engine.evaluate(injected, 'enforce').matchedGuardrails).toHaveLength(17);
    expect(engine.evaluate(typed, 'enforce').matchedGuardrails).toHaveLength(0);
  });
});

describe('validation', () => {
  const errorsOf = (match: unknown) => {
    const r = validatePolicy({ name: 'p', decision: 'block', match });
    if (r.ok) throw new Error('expected the policy to be invalid');
    return r.errors;
  };

  test.each([
    leaf('provenance.tainted', 'gte', 1),
    leaf('provenance.instructed', 'eq', 0),
    leaf('session.untrustedInstructions', 'in', [1, 2]),
    leaf('provenance.arguments.recipient', 'eq', 'tool'),
    leaf('provenance.arguments.recipients.0', 'in', ['tool', 'both', 'none']),
    leaf('provenance.arguments.recipient', 'exists', false),
  ])('valid: %j', (match) => {
    expect(validatePolicy({ name: 'p', decision: 'block', match }).ok).toBe(true);
  });

  test('an origin value outside user, tool, both, none is named with its path', () => {
    expect(errorsOf({ all: [leaf('provenance.arguments.recipient', 'eq', 'tools')] })).toEqual([
      { path: 'match.all.0.value', message: 'must be an origin: user, tool, both, none' },
    ]);
    expect(errorsOf(leaf('provenance.arguments.recipient', 'in', ['tool', 'model']))).toEqual([
      { path: 'match.value.1', message: 'must be an origin: user, tool, both, none' },
    ]);
  });

  test('a count takes non-negative integers', () => {
    expect(errorsOf(leaf('provenance.tainted', 'gte', 0.5))).toEqual([
      { path: 'match.value', message: 'a count is a non-negative integer' },
    ]);
    expect(errorsOf(leaf('session.untrustedInstructions', 'eq', 'many'))).toEqual([
      { path: 'match.value', message: 'a count compares with numbers, got "many"' },
    ]);
    expect(errorsOf(leaf('provenance.instructed', 'in', [1, -1]))).toEqual([
      { path: 'match.value.1', message: 'a count is a non-negative integer' },
    ]);
  });

  test('an operator that does not apply is named at the op', () => {
    expect(errorsOf(leaf('provenance.arguments.recipient', 'regex', 'to'))).toEqual([
      {
        path: 'match.op',
        message:
          'op "regex" does not apply to provenance.arguments.recipient, an origin (user, tool, both or none); use eq, in, exists',
      },
    ]);
    expect(errorsOf(leaf('provenance.tainted', 'contains', 1))[0]?.path).toBe('match.op');
  });

  test('the operator checks its own value first', () => {
    expect(errorsOf(leaf('provenance.tainted', 'gte', 'x'))).toEqual([
      { path: 'match.value', message: 'op "gte" needs a finite number, got a string' },
    ]);
  });

  test('unknown provenance fields list the allowed ones', () => {
    const [e] = errorsOf(leaf('provenance.origin', 'eq', 'tool'));
    expect(e?.path).toBe('match.field');
    expect(e?.message).toContain('provenance.tainted, provenance.instructed, session.untrustedInstructions');
    expect(e?.message).toContain('provenance.arguments.<path>');
  });
});

describe('rule text and reasons', () => {
  const money = { field: 'tool.name', op: 'in', value: ['send_money', 'schedule_transaction'] } as MatchNode;

  test('the rule text reads like the other conditions', () => {
    expect(
      describeMatch({
        all: [
          money,
          leaf('provenance.tainted', 'gte', 1),
          { not: leaf('provenance.arguments.recipient', 'eq', 'user') },
        ],
      }),
    ).toBe(
      'tool.name in ["send_money", "schedule_transaction"] and provenance.tainted >= 1 and not (provenance.arguments.recipient = "user")',
    );
  });

  test('a tainted argument: path, tool and call, never the value', () => {
    const reason = reasonOf({ all: [money, leaf('provenance.tainted', 'gte', 1)] }, injected);
    expect(reason).toBe(
      `tool.name in ["send_money", "schedule_transaction"] and provenance.tainted >= 1; ` +
        `arguments.recipient came from the output of read_file (call ${READ}), which carried instructions aimed at the model, not from the user's request`,
    );
    expect(reason).not.toContain('GB29');
  });

  test("an argument's origin, also under not", () => {
    expect(reasonOf({ not: leaf('provenance.arguments.recipient', 'in', ['user', 'both']) }, injected)).toBe(
      `not (provenance.arguments.recipient in ["user", "both"]); arguments.recipient came from the output of read_file (call ${READ}), which carried instructions aimed at the model, not from the user's request`,
    );
    expect(reasonOf(leaf('provenance.arguments.subject', 'eq', 'none'), injected)).toBe(
      'provenance.arguments.subject = "none"; arguments.subject appeared in no input: the model wrote it',
    );
  });

  test('the session signal names the latest tool output that carried instructions', () => {
    expect(reasonOf(leaf('session.untrustedInstructions', 'gte', 1), injected)).toBe(
      `session.untrustedInstructions >= 1; the session received instructions aimed at the model 2 times, the latest in the output of get_webpage (call ${WEB})`,
    );
    const once: EvaluationInput = {
      provenance: { session: { untrustedInstructions: 1, lastInstruction: { toolName: 'get_webpage' } } },
    };
    expect(reasonOf(leaf('session.untrustedInstructions', 'gte', 1), once)).toBe(
      'session.untrustedInstructions >= 1; the session received instructions aimed at the model in the output of get_webpage',
    );
  });

  test('several sources, part of a long leaf, and more than three tainted leaves', () => {
    const input: EvaluationInput = {
      provenance: {
        arguments: [
          {
            path: 'body',
            origin: 'both',
            tainted: true,
            sources: [{ toolName: 'read_inbox', toolCallId: READ }, { toolName: 'get_webpage' }],
          },
          { path: 'to.0', origin: 'tool', tainted: true, sources: [] },
          { path: 'to.1', origin: 'tool', tainted: true, sources: [{ toolName: 'search' }] },
          { path: 'cc', origin: 'tool', tainted: true, sources: [{ toolName: 'search' }] },
          { path: 'subject', origin: 'tool', tainted: true, sources: [{ toolName: 'search' }] },
        ],
      },
    };
    expect(reasonOf(leaf('provenance.tainted', 'gte', 2), input)).toBe(
      'provenance.tainted >= 2; ' +
        `part of arguments.body came from the output of read_inbox (call ${READ}) and get_webpage, not from the user's request; ` +
        "arguments.to.0 came from tool output, not from the user's request; " +
        "arguments.to.1 came from the output of search, not from the user's request; " +
        'and 2 more tainted argument(s)',
    );
  });

  test('facts come from the branch of an any that held, once each', () => {
    const match: MatchNode = {
      all: [
        leaf('provenance.tainted', 'gte', 1),
        {
          any: [
            leaf('provenance.arguments.recipient', 'eq', 'user'),
            leaf('provenance.instructed', 'gte', 1),
          ],
        },
      ],
    };
    expect(reasonOf(match, injected)).toBe(
      `provenance.tainted >= 1 and provenance.instructed >= 1; arguments.recipient came from the output of read_file (call ${READ}), which carried instructions aimed at the model, not from the user's request`,
    );
  });

  test('a policy reading no provenance keeps its reason unchanged', () => {
    expect(reasonOf(money, injected)).toBe('tool.name in ["send_money", "schedule_transaction"]');
  });

  test('the engine gives the same reason', () => {
    const p = policy({ all: [money, leaf('provenance.instructed', 'gte', 1)] });
    const r = createEngine([p]).evaluate(injected, 'enforce');
    expect(r.matchedGuardrails[0]?.reason).toBe(compilePolicy(p).reason(injected));
  });
});
