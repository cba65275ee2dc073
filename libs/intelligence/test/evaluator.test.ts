import { ConfigError } from '@agent-warden/config';
import { IntelligenceDraft, newId } from '@agent-warden/contracts';
import {
  analyseSession,
  buildTranscript,
  createSessionEvaluator,
  evaluatorConfigFromEnv,
  EVALUATOR_SCORE_NAME,
  inSample,
  type SessionEvaluator,
  type SessionInput,
} from '../src';
import { captureLogger } from './support/capture-logger';
import { chatCompletion, startFakeOpenAI, type FakeOpenAI } from './narrative-server';
import { loadTrajectories, trajectoryToInput } from './support/trajectory-input';

const MODEL = 'judge-model-1';

/** A real tau-bench session: a cancellation with a full refund on the user's word (failed in the benchmark). */
const tau = loadTrajectories('tau_bench_airline.jsonl');
const cancelled = tau.find((t) => t.trajectory_id === 'tau-bench/gpt-4o-airline/task_41/trial_2')!;

/** The `[n]` number of the first transcript line that starts with `prefix`, read from the request the model got. */
function refOf(transcript: string, prefix: string): number {
  const line = transcript.split('\n').find((l) => l.replace(/^\[\d+\] /, '').startsWith(prefix));
  if (!line) throw new Error(`no line starting with ${prefix}`);
  return Number(/^\[(\d+)\]/.exec(line)![1]);
}

/** The transcript in the request body (the user message after `TRANSCRIPT:`). */
function transcriptIn(body: Record<string, unknown>): string {
  const messages = body.messages as { role: string; content: string }[];
  return messages.find((m) => m.role === 'user')!.content.replace(/^TRANSCRIPT:\n/, '');
}

describe('the transcript a model evaluator reads', () => {
  it('numbers the messages and each call with its arguments and result, in session order', () => {
    const input = trajectoryToInput(cancelled);
    const t = buildTranscript(input, 24_000);
    expect(t.omitted).toBe(0);
    const lines = t.text.split('\n');
    expect(lines[0]).toMatch(/^\[1\] user: /);
    const call = lines.find((l) => l.includes('call cancel_reservation('))!;
    expect(call).toMatch(/^\[\d+\] call cancel_reservation\(\{"reservation_id":"[^"]+"\}\) → \{/);
    // Each entry stands for events of the session; a call's entry for its start and end.
    const known = new Set(input.events.map((e) => e.id));
    for (const e of t.entries) for (const id of e.eventIds) expect(known.has(id)).toBe(true);
    const callEntry = t.entries.find((e) => e.line.startsWith('call cancel_reservation'))!;
    const types = callEntry.eventIds.map((id) => input.events.find((e) => e.id === id)!.type);
    expect(types).toEqual(expect.arrayContaining(['agent.tool.started', 'agent.tool.completed']));
    expect(lines.at(-1)).toMatch(/session ended: completed$/);
  });

  it('stays under its cap on a long session, cutting results first and then the middle', () => {
    const longest = tau.reduce((a, b) => (b.steps.length > a.steps.length ? b : a));
    const input = trajectoryToInput(longest);
    const full = buildTranscript(input, 1_000_000);
    const cut = buildTranscript(input, 3_000);
    expect(cut.text.length).toBeLessThanOrEqual(3_000);
    expect(cut.omitted).toBeGreaterThan(0);
    expect(cut.text).toContain(`… ${cut.omitted} entries left out …`);
    // The start and the end of the session stay.
    expect(cut.text.split('\n')[0]).toBe(`[1] ${full.entries[0]!.line}`);
    expect(cut.text.endsWith(full.entries.at(-1)!.line)).toBe(true);
  });

  it('shows an action performed outside a tool, with its details', () => {
    const input = trajectoryToInput(cancelled);
    const last = input.events.at(-1)!;
    const action = {
      ...last,
      id: 'action-event-1',
      type: 'agent.action.performed' as const,
      sequence: last.sequence + 1,
      data: { actionType: 'email.send', name: 'send_receipt', details: { to: 'customer' } },
    };
    const t = buildTranscript({ ...input, events: [...input.events, action] }, 24_000);
    const entry = t.entries.at(-1)!;
    expect(entry.line).toBe('action email.send send_receipt {"to":"customer"}');
    expect(entry.eventIds).toEqual(['action-event-1']);
  });

  it('starts with the request when the session logged no user message', () => {
    const input: SessionInput = trajectoryToInput(cancelled);
    const noUser = {
      ...input,
      session: { ...input.session, inputSummary: 'cancel my reservation' },
      events: input.events.filter((e) => !(e.type === 'agent.message.logged' && e.data.role === 'user')),
    };
    expect(buildTranscript(noUser, 24_000).text.split('\n')[0]).toBe('[1] request: cancel my reservation');
  });
});

describe('the model evaluator over a local OpenAI-compatible server', () => {
  let fake: FakeOpenAI;
  let evaluator: SessionEvaluator;
  let log: ReturnType<typeof captureLogger>;
  const input = trajectoryToInput(cancelled);

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    log = captureLogger();
    evaluator = createSessionEvaluator(
      { baseUrl: fake.baseUrl, model: MODEL, timeoutMs: 2_000, maxRetries: 0 },
      log.logger,
    )!;
  });

  /** Answers with `reply(transcript)` as the structured output. */
  const answerWith = (reply: (transcript: string) => unknown) => {
    fake.answer = (body) => ({
      kind: 'json',
      status: 200,
      body: chatCompletion(String(body.model), JSON.stringify(reply(transcriptIn(body)))),
    });
  };

  it('turns a failed verdict into items citing the events of the entries named, and a false goal_achieved score', async () => {
    answerWith((tr) => ({
      verdict: 'failed',
      reason: 'The reservation was cancelled with a full refund without checking when it was booked.',
      causes: [
        {
          kind: 'forbidden_action',
          explanation: 'The cancellation relied on the user saying it was booked 10 hours ago.',
          entries: [refOf(tr, 'call cancel_reservation'), refOf(tr, 'user: Yes, I booked')],
        },
        // An entry that does not exist: the cause cannot point at evidence and is dropped.
        { kind: 'other', explanation: 'Something else.', entries: [9_999] },
      ],
    }));
    const ev = (await evaluator.evaluate(input))!;
    expect(ev).toMatchObject({ generator: `llm:${MODEL}`, verdict: 'failed' });
    expect(ev.score).toEqual({
      name: EVALUATOR_SCORE_NAME,
      value: false,
      comment: 'The reservation was cancelled with a full refund without checking when it was booked.',
    });
    expect(ev.items).toHaveLength(1);
    const [item] = ev.items;
    expect(item).toMatchObject({ kind: 'evaluator_failure_cause', severity: 'high' });
    expect(item!.detail).toContain('booked 10 hours ago');
    expect(item!.detail).toContain(MODEL);
    const cited = item!.evidenceEventIds.map((id) => input.events.find((e) => e.id === id)!);
    expect(cited.map((e) => e.type)).toEqual(
      expect.arrayContaining(['agent.tool.started', 'agent.tool.completed', 'agent.message.logged']),
    );
    expect(cited.find((e) => e.type === 'agent.tool.started')!.data.toolName).toBe('cancel_reservation');
    expect(log.lines.find((l) => l.msg === 'session evaluated')).toMatchObject({
      verdict: 'failed',
      causes: 1,
      droppedCauses: 1,
    });

    // The request: the model, strict structured output, and the numbered transcript (the call's arguments included).
    const body = fake.requests[0]!.body as Record<string, unknown>;
    expect(body.model).toBe(MODEL);
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'session_evaluation', strict: true },
    });
    expect(transcriptIn(body)).toContain('call cancel_reservation({"reservation_id":');
  });

  it('the items join the intelligence: counted in the summary, ordered by severity', async () => {
    answerWith((tr) => ({
      verdict: 'failed',
      reason: 'x',
      causes: [
        {
          kind: 'wrong_value',
          explanation: 'Another value.',
          entries: [refOf(tr, 'call cancel_reservation')],
        },
      ],
    }));
    const ev = (await evaluator.evaluate(input))!;
    const plain = analyseSession(input);
    const draft = IntelligenceDraft.parse(analyseSession(input, { actionItems: ev.items }));
    expect(draft.actionItems).toHaveLength(plain.actionItems.length + 1);
    expect(draft.actionItems.map((a) => a.kind)).toContain('evaluator_failure_cause');
    const order = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
    const severities = draft.actionItems.map((a) => order[a.severity]);
    expect(severities).toEqual([...severities].sort((a, b) => a - b));
    expect(draft.summary.text).not.toBe(plain.summary.text);
  });

  it('an achieved verdict gives no items and a true score; an unclear one neither items nor score', async () => {
    answerWith(() => ({
      verdict: 'achieved',
      reason: 'Done as asked.',
      causes: [{ kind: 'other', explanation: 'x', entries: [1] }],
    }));
    expect(await evaluator.evaluate(input)).toMatchObject({ items: [], score: { value: true } });
    answerWith(() => ({ verdict: 'unclear', reason: 'The middle is missing.', causes: [] }));
    expect(await evaluator.evaluate(input)).toMatchObject({ verdict: 'unclear', items: [], score: null });
  });

  it.each([
    [
      'an HTTP error',
      () => ({
        kind: 'json' as const,
        status: 400,
        body: { error: { message: 'bad', type: 'invalid_request_error' } },
      }),
      'http_error',
    ],
    [
      'a reply that is not JSON',
      () => ({ kind: 'json' as const, status: 200, body: chatCompletion(MODEL, 'not json') }),
      'invalid_reply',
    ],
    [
      'a reply of another shape',
      () => ({ kind: 'json' as const, status: 200, body: chatCompletion(MODEL, '{"verdict":"great"}') }),
      'invalid_reply',
    ],
    [
      'a refusal',
      () => ({ kind: 'json' as const, status: 200, body: chatCompletion(MODEL, null, { refusal: 'no' }) }),
      'refusal',
    ],
  ])('%s gives no evaluation and a warning', async (_what, answer, reason) => {
    fake.answer = answer;
    expect(await evaluator.evaluate(input)).toBeNull();
    expect(log.lines.find((l) => l.level === 40)).toMatchObject({
      reason,
      msg: 'evaluation failed; no evaluator items or score',
    });
  });
});

describe('the evaluated sample', () => {
  it('keeps about the share asked for, the same sessions every time', () => {
    const ids = Array.from({ length: 2_000 }, () => newId());
    const kept = ids.filter((id) => inSample(id, 0.25));
    expect(kept.length).toBeGreaterThan(400);
    expect(kept.length).toBeLessThan(600);
    expect(ids.filter((id) => inSample(id, 0.25))).toEqual(kept);
    // A larger share keeps every session a smaller one kept.
    const half = new Set(ids.filter((id) => inSample(id, 0.5)));
    for (const id of kept) expect(half.has(id)).toBe(true);
    expect(ids.every((id) => inSample(id, 1))).toBe(true);
  });

  it('a session outside the sample is not sent to the model', async () => {
    const fake = await startFakeOpenAI();
    try {
      const { logger } = captureLogger();
      const input = trajectoryToInput(cancelled);
      const rate = 0.5;
      const outside = {
        ...input,
        session: {
          ...input.session,
          id: Array.from({ length: 100 }, () => newId()).find((id) => !inSample(id, rate))!,
        },
      };
      const evaluator = createSessionEvaluator(
        { baseUrl: fake.baseUrl, model: MODEL, maxRetries: 0, sampleRate: rate },
        logger,
      )!;
      expect(await evaluator.evaluate(outside)).toBeNull();
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });
});

describe('evaluatorConfigFromEnv', () => {
  it('is off unless WARDEN_LLM_EVALUATOR is on', () => {
    expect(evaluatorConfigFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' })).toBeNull();
    expect(evaluatorConfigFromEnv({ WARDEN_LLM_EVALUATOR: 'off', OPENAI_API_KEY: 'k' })).toBeNull();
  });

  it('on, uses the narrative endpoint and model and its own transcript cap', () => {
    expect(
      evaluatorConfigFromEnv({
        WARDEN_LLM_EVALUATOR: 'on',
        OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        WARDEN_LLM_MODEL: 'm',
        WARDEN_LLM_MAX_TRANSCRIPT_CHARS: '5000',
        WARDEN_LLM_EVALUATOR_SAMPLE: '0.1',
      }),
    ).toMatchObject({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      maxTranscriptChars: 5000,
      sampleRate: 0.1,
    });
    expect(evaluatorConfigFromEnv({ WARDEN_LLM_EVALUATOR: 'on', OPENAI_API_KEY: 'k' })).toMatchObject({
      sampleRate: 1,
    });
  });

  it('names WARDEN_LLM_EVALUATOR when it is on without an endpoint, and an invalid cap', () => {
    const issues = (env: NodeJS.ProcessEnv) => {
      try {
        evaluatorConfigFromEnv(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).issues.map((i) => i.variable);
      }
      throw new Error('no error');
    };
    expect(issues({ WARDEN_LLM_EVALUATOR: 'yes' })).toEqual(['WARDEN_LLM_EVALUATOR']);
    expect(issues({ WARDEN_LLM_EVALUATOR: 'maybe' })).toEqual(['WARDEN_LLM_EVALUATOR']);
    expect(
      issues({ WARDEN_LLM_EVALUATOR: 'on', OPENAI_API_KEY: 'k', WARDEN_LLM_MAX_TRANSCRIPT_CHARS: '10' }),
    ).toEqual(['WARDEN_LLM_MAX_TRANSCRIPT_CHARS']);
    for (const bad of ['0', '1.5', 'half'])
      expect(
        issues({ WARDEN_LLM_EVALUATOR: 'on', OPENAI_API_KEY: 'k', WARDEN_LLM_EVALUATOR_SAMPLE: bad }),
      ).toEqual(['WARDEN_LLM_EVALUATOR_SAMPLE']);
  });
});
