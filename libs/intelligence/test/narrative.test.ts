import { ConfigError } from '@agent-warden/config';
import { IntelligenceDraft, type StoryMoment } from '@agent-warden/contracts';
import {
  buildNarrativeFacts,
  createNarrator,
  narratorConfigFromEnv,
  NarratorConfigError,
  type Narrator,
} from '../src';
import { deterministicDraft, FOREIGN_ID, ids, sessionInput } from './narrative-fixtures';
import { captureLogger } from './support/capture-logger';
import { chatCompletion, startFakeOpenAI, type FakeOpenAI } from './narrative-server';

const MODEL = 'test-model-1';
const KEY = 'sk-test-narrative';

/** The JSON the model would put in the message content. */
function replyJson(reply: unknown): string {
  return JSON.stringify(reply);
}

const goodReply = {
  summary:
    'The agent searched flights to Paris and tried to pay, but the payment was declined and the run failed.',
  moments: [
    { index: 0, text: 'The agent started the booking task.', eventIds: [ids.started] },
    {
      index: 2,
      text: 'The payment with send_money was declined, which stopped the booking.',
      eventIds: [ids.payFailed],
    },
    { index: 3, text: 'The session ended failed.', eventIds: [ids.runDone, ids.ended] },
  ],
};

function allCitedIds(d: IntelligenceDraft): string[] {
  return [
    ...d.story.flatMap((m) => m.eventIds),
    ...d.actionItems.flatMap((a) => a.evidenceEventIds),
    ...d.recommendations.flatMap((r) => r.evidenceEventIds),
  ];
}

describe('LLM narrative over a local OpenAI-compatible server', () => {
  let fake: FakeOpenAI;
  let narrator: Narrator;
  let log: ReturnType<typeof captureLogger>;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    log = captureLogger();
    narrator = createNarrator(
      { apiKey: KEY, baseUrl: fake.baseUrl, model: MODEL, timeoutMs: 2_000, maxRetries: 0 },
      log.logger,
    )!;
  });

  const answerWith = (content: string | null, extra?: { refusal?: string; finishReason?: string }) => {
    fake.answer = (body) => ({
      kind: 'json',
      status: 200,
      body: chatCompletion(String(body.model), content, extra),
    });
  };
  const warnings = () => log.lines.filter((l) => l.level === 40);

  it('replaces the summary and moment texts, sets the generator, and keeps every figure, kind and evidence list', async () => {
    answerWith(replyJson(goodReply));
    const draft = deterministicDraft();
    const out = await narrator.write(draft, sessionInput());

    expect(out.generator).toBe(`llm:${MODEL}`);
    expect(out.summary.text).toBe(goodReply.summary);
    expect(out.story.map((m) => m.text)).toEqual([
      'The agent started the booking task.',
      'search_flights returned 3 flights.', // not narrated: the deterministic text stays
      'The payment with send_money was declined, which stopped the booking.',
      'The session ended failed.',
    ]);
    // Only texts changed.
    expect(out.summary.figures).toEqual(draft.summary.figures);
    expect(out.summary.input).toBe(draft.summary.input);
    expect(out.summary.outcome).toEqual(draft.summary.outcome);
    expect(out.story.map(({ kind, time, title, eventIds }) => ({ kind, time, title, eventIds }))).toEqual(
      draft.story.map(({ kind, time, title, eventIds }) => ({ kind, time, title, eventIds })),
    );
    expect(out.actionItems).toEqual(draft.actionItems);
    expect(out.recommendations).toEqual(draft.recommendations);
    expect(IntelligenceDraft.safeParse(out).success).toBe(true);
    // The input draft itself is untouched.
    expect(draft).toEqual(deterministicDraft());
    expect(log.lines.find((l) => l.msg === 'narrative written')).toMatchObject({
      sessionId: sessionInput().session.id,
      model: MODEL,
      momentsNarrated: 3,
      citationsDropped: 0,
      promptTokens: 812,
    });
  });

  it('drops cited ids that are not events of the session, and a moment left with none', async () => {
    answerWith(
      replyJson({
        summary: `The payment failed (see event ${FOREIGN_ID}).`,
        moments: [
          { index: 1, text: 'A search that never happened.', eventIds: [FOREIGN_ID, 'not-an-id'] },
          {
            index: 2,
            text: 'The payment was declined.',
            eventIds: [FOREIGN_ID, ids.payFailed, ids.searchDone],
          },
          { index: 99, text: 'A moment that does not exist.', eventIds: [ids.ended] },
        ],
      }),
    );
    const input = sessionInput();
    const out = await narrator.write(deterministicDraft(), input);

    const sessionIds = new Set(input.events.map((e) => e.id));
    expect(out.generator).toBe(`llm:${MODEL}`);
    expect(allCitedIds(out).filter((id) => !sessionIds.has(id))).toEqual([]);
    expect(JSON.stringify(out)).not.toContain(FOREIGN_ID);
    expect(out.summary.text).toBe('The payment failed (see event [unknown event]).');
    // Moment 1 cited no event of the session: its narration is dropped, the deterministic one stays.
    expect(out.story[1]).toEqual(deterministicDraft().story[1]);
    // Moment 2 keeps its own ids and gains the valid id the model linked it to.
    expect(out.story[2]).toMatchObject({
      text: 'The payment was declined.',
      eventIds: [ids.payStarted, ids.payFailed, ids.searchDone],
    });
    expect(out.story).toHaveLength(4);
    expect(log.lines.find((l) => l.msg === 'narrative written')).toMatchObject({
      momentsNarrated: 1,
      momentsDropped: 2,
      citationsDropped: 3,
      idsInTextRemoved: 1,
    });
  });

  describe('falls back to the deterministic draft, unchanged, with a warning', () => {
    const cases: [string, () => void, string][] = [
      [
        'server error 500',
        () => {
          fake.answer = () => ({
            kind: 'json',
            status: 500,
            body: { error: { message: 'boom', type: 'server_error' } },
          });
        },
        'http_error',
      ],
      ['content that is not JSON', () => answerWith('{"summary": "The agent', undefined), 'invalid_reply'],
      [
        'a reply that violates the schema',
        () => answerWith(replyJson({ summary: 42, moments: 'none' })),
        'invalid_reply',
      ],
      [
        'a reply with a blank summary',
        () => answerWith(replyJson({ summary: '  ', moments: [] })),
        'invalid_reply',
      ],
      ['a reply with no content', () => answerWith(null), 'invalid_reply'],
      ['a refusal', () => answerWith(null, { refusal: 'I cannot help with that.' }), 'refusal'],
      [
        'a reply cut by the token limit',
        () => answerWith('{"summary": "The', { finishReason: 'length' }),
        'invalid_reply',
      ],
      [
        'a 200 that is not a chat completion',
        () => {
          fake.answer = () => ({
            kind: 'raw',
            status: 200,
            body: '<html>gateway</html>',
            contentType: 'text/html',
          });
        },
        'unexpected',
      ],
    ];

    it.each(cases)('%s', async (_name, arrange, reason) => {
      arrange();
      const draft = deterministicDraft();
      const out = await narrator.write(draft, sessionInput());
      expect(out).toBe(draft);
      expect(out).toEqual(deterministicDraft());
      expect(fake.requests).toHaveLength(1);
      expect(warnings()).toEqual([
        expect.objectContaining({ msg: 'narrative failed; deterministic texts kept', reason, model: MODEL }),
      ]);
    });

    it('a server that does not answer within timeoutMs', async () => {
      fake.answer = () => ({ kind: 'hang' });
      const slow = createNarrator(
        { apiKey: KEY, baseUrl: fake.baseUrl, model: MODEL, timeoutMs: 300, maxRetries: 0 },
        log.logger,
      )!;
      const draft = deterministicDraft();
      await expect(slow.write(draft, sessionInput())).resolves.toBe(draft);
      expect(warnings()).toEqual([expect.objectContaining({ reason: 'timeout' })]);
    });

    it('a 500 retried once (the SDK retry), then given up', async () => {
      fake.answer = () => ({
        kind: 'json',
        status: 503,
        body: { error: { message: 'busy', type: 'server_error' } },
      });
      const retrying = createNarrator(
        { apiKey: KEY, baseUrl: fake.baseUrl, model: MODEL, timeoutMs: 10_000, maxRetries: 1 },
        log.logger,
      )!;
      const draft = deterministicDraft();
      await expect(retrying.write(draft, sessionInput())).resolves.toBe(draft);
      expect(fake.requests).toHaveLength(2);
      expect(warnings()).toEqual([expect.objectContaining({ reason: 'http_error' })]);
    });

    it('an endpoint nobody listens on', async () => {
      const closed = await startFakeOpenAI();
      await closed.close();
      const nowhere = createNarrator({ baseUrl: closed.baseUrl, model: MODEL, maxRetries: 0 }, log.logger)!;
      const draft = deterministicDraft();
      await expect(nowhere.write(draft, sessionInput())).resolves.toBe(draft);
      expect(warnings()).toEqual([expect.objectContaining({ reason: 'connection_error' })]);
    });
  });

  it('sends the model name, the API key and the structured facts, not the raw events', async () => {
    answerWith(replyJson(goodReply));
    await narrator.write(deterministicDraft(), sessionInput());

    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body as {
      model: string;
      messages: { role: string; content: string }[];
      response_format: { type: string; json_schema: { name: string; strict: boolean; schema: unknown } };
    };
    expect(body.model).toBe(MODEL);
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'session_narrative', strict: true },
    });
    expect(body.response_format.json_schema.schema).toMatchObject({
      type: 'object',
      required: ['summary', 'moments'],
      additionalProperties: false,
    });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const user = body.messages[1]!.content;
    expect(user.startsWith('FACTS:\n')).toBe(true);
    const facts = JSON.parse(user.slice('FACTS:\n'.length));
    expect(facts).toMatchObject({
      session: { agent: 'travel-agent', status: 'failed' },
      outcome: { status: 'failed', text: 'The run book-flight failed: payment declined.' },
      figures: { toolCalls: 2, toolFailures: 1, toolCallsByTool: { send_money: { calls: 1, failures: 1 } } },
      momentsOmitted: 0,
      actionItems: [{ kind: 'run_failed', severity: 'high', evidenceEventIds: [ids.payFailed, ids.runDone] }],
      recommendations: [{ kind: 'sensitive_tool_approval', title: 'Ask a person before send_money' }],
    });
    expect(facts.moments.map((m: { index: number; eventIds: string[] }) => [m.index, m.eventIds])).toEqual(
      deterministicDraft().story.map((m: StoryMoment, i: number) => [i, m.eventIds]),
    );
    // Raw event payloads and the draft policies are not sent.
    expect(user).not.toContain('CDG');
    expect(user).not.toContain('"policy"');
  });

  it('with only a base URL (a local endpoint without a key) sends no Authorization header', async () => {
    answerWith(replyJson(goodReply));
    const local = createNarrator(narratorConfigFromEnv({ OPENAI_BASE_URL: fake.baseUrl }), log.logger);
    expect(local).not.toBeNull();
    const out = await local!.write(deterministicDraft(), sessionInput());
    expect(out.generator).toBe('llm:gpt-4o-mini');
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
    expect((fake.requests[0]!.body as { model: string }).model).toBe('gpt-4o-mini');
  });
});

describe('narrative configuration', () => {
  it('is off (null narrator) without OPENAI_API_KEY or OPENAI_BASE_URL', () => {
    const { logger } = captureLogger();
    expect(createNarrator(narratorConfigFromEnv({}), logger)).toBeNull();
    expect(
      createNarrator(narratorConfigFromEnv({ WARDEN_LLM_MODEL: 'gpt-4.1', OPENAI_API_KEY: '' }), logger),
    ).toBeNull();
    expect(createNarrator({ model: 'gpt-4o-mini' }, logger)).toBeNull();
    expect(createNarrator(narratorConfigFromEnv({ OPENAI_API_KEY: 'sk-1' }), logger)?.model).toBe(
      'gpt-4o-mini',
    );
  });

  it('reads and coerces the variables, with defaults', () => {
    expect(narratorConfigFromEnv({})).toEqual({
      model: 'gpt-4o-mini',
      timeoutMs: 30_000,
      maxRetries: 1,
      maxFactsChars: 16_000,
    });
    expect(
      narratorConfigFromEnv({
        OPENAI_API_KEY: 'sk-1',
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
        WARDEN_LLM_MODEL: 'llama3.1',
        WARDEN_LLM_TIMEOUT_MS: '5000',
        WARDEN_LLM_MAX_RETRIES: '0',
      }),
    ).toEqual({
      apiKey: 'sk-1',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3.1',
      timeoutMs: 5000,
      maxRetries: 0,
      maxFactsChars: 16_000,
    });
  });

  it('trims values and counts whitespace-only ones as unset (parsed by parseEnv)', () => {
    expect(
      narratorConfigFromEnv({ OPENAI_API_KEY: '   ', WARDEN_LLM_MODEL: ' llama3.1 ', PATH: '/bin' }),
    ).toEqual({
      model: 'llama3.1',
      timeoutMs: 30_000,
      maxRetries: 1,
      maxFactsChars: 16_000,
    });
    expect(() => narratorConfigFromEnv({ WARDEN_LLM_MAX_RETRIES: '11' })).toThrow(ConfigError);
  });

  it('names the invalid variables', () => {
    const bad = () => narratorConfigFromEnv({ WARDEN_LLM_TIMEOUT_MS: 'soon', OPENAI_BASE_URL: 'not a url' });
    expect(bad).toThrow(NarratorConfigError);
    try {
      bad();
    } catch (err) {
      expect((err as NarratorConfigError).issues.map((i) => i.variable).sort()).toEqual([
        'OPENAI_BASE_URL',
        'WARDEN_LLM_TIMEOUT_MS',
      ]);
    }
  });
});

describe('narrative facts', () => {
  it('stay under the size cap on a long session, keeping its start and end', () => {
    const draft = deterministicDraft();
    const base = draft.story[2]!;
    draft.story = Array.from({ length: 500 }, (_, i) => ({
      ...base,
      title: `send_money failed (attempt ${i})`,
      text: 'x'.repeat(1_000),
    }));
    const { facts, json } = buildNarrativeFacts(draft, sessionInput(), 8_000);
    expect(json.length).toBeLessThanOrEqual(8_000);
    expect(facts.moments[0]!.index).toBe(0);
    expect(facts.moments.at(-1)!.index).toBe(499);
    expect(facts.momentsOmitted).toBe(500 - facts.moments.length);
  });
});
