import { generateText, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { guardTools, wardenMiddleware } from '../src/integrations/ai-sdk';
import { FakeWarden } from './fake-warden';
import { Clients, testOptions } from './helpers';

// The Vercel AI SDK adapter driven by the real `generateText` / `streamText` and the SDK's own mock
// model (`MockLanguageModelV4` from `ai/test`), against the local test double of the service. The
// same against the real service: test/ai-sdk.int.test.ts at the repository root.

let server: FakeWarden;
const clients = new Clients();
const ran: string[] = [];

beforeEach(async () => {
  server = await new FakeWarden().start();
  ran.length = 0;
});
afterEach(async () => {
  await clients.shutdownAll();
  await server.stop();
  expect(server.contractViolations).toEqual([]);
});

function usage(input: number, output: number, cached = 0) {
  return {
    inputTokens: { total: input, noCache: input - cached, cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function toolCall(id: string, toolName: string, input: Record<string, unknown>) {
  return { type: 'tool-call' as const, toolCallId: id, toolName, input: JSON.stringify(input) };
}

/** A model that reads the invoice, pays it, then answers — with the usage a provider reports. */
function scriptedModel() {
  return new MockLanguageModelV4({
    provider: 'openai.chat',
    modelId: 'gpt-4o-mini',
    doGenerate: [
      {
        content: [toolCall('c1', 'readInvoice', { path: 'inv.txt' })],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(50, 10, 20),
        warnings: [],
        response: { modelId: 'gpt-4o-mini-2024-07-18' },
      },
      {
        content: [toolCall('c2', 'sendMoney', { recipient: 'ACME', amount: 120 })],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(80, 12),
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'Paid.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(100, 4),
        warnings: [],
      },
    ],
  });
}

/** What the guard was asked (the parts these tests read). */
interface EvaluateBody {
  tool: { name: string };
  arguments: Record<string, unknown>;
  provenance: { arguments: Array<{ path: string; origin: string; tainted: boolean }> };
}

const tools = {
  readInvoice: tool({
    description: 'Reads an invoice',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      ran.push(`readInvoice ${path}`);
      return 'Invoice 7, 120 EUR';
    },
  }),
  sendMoney: tool({
    description: 'Sends money',
    inputSchema: z.object({ recipient: z.string(), amount: z.number() }),
    execute: async ({ recipient }) => {
      ran.push(`sendMoney ${recipient}`);
      return 'sent';
    },
  }),
};

describe('wardenMiddleware + guardTools (AI SDK)', () => {
  it('records each model call with its tokens in the run, and each guarded tool call once', async () => {
    const warden = clients.make(testOptions(server, { mode: 'enforce' }));
    const model = wrapLanguageModel({ model: scriptedModel(), middleware: wardenMiddleware(warden) });
    let runId = '';
    const result = await warden.withRun({ name: 'pay-invoice' }, (run) => {
      runId = run.runId;
      return generateText({
        model,
        tools: guardTools(warden, tools),
        prompt: 'Pay invoice 7',
        stopWhen: stepCountIs(5),
      });
    });
    await warden.flush();
    expect(result.text).toBe('Paid.');
    expect(ran).toEqual(['readInvoice inv.txt', 'sendMoney ACME']);

    const calls = server.eventsOfType('agent.llm.called');
    expect(
      calls.map((c) => [c.runId, c.data.inputTokens, c.data.outputTokens, c.data.finishReasons]),
    ).toEqual([
      [runId, 50, 10, ['tool_calls']],
      [runId, 80, 12, ['tool_calls']],
      [runId, 100, 4, ['stop']],
    ]);
    expect(calls[0]!.data).toMatchObject({
      model: 'gpt-4o-mini',
      provider: 'openai',
      responseModel: 'gpt-4o-mini-2024-07-18',
      cachedInputTokens: 20,
    });

    const checks = server.requestsTo('/v1/guardrails/evaluate').map((r) => r.body as EvaluateBody);
    expect(checks.map((c) => c.tool.name)).toEqual(['readInvoice', 'sendMoney']);
    expect(checks[1]!.arguments).toEqual({ recipient: 'ACME', amount: 120 });
    const completed = server.eventsOfType('agent.tool.completed');
    expect(completed.map((e) => [e.runId, e.data.toolName, e.data.result])).toEqual([
      [runId, 'readInvoice', 'Invoice 7, 120 EUR'],
      [runId, 'sendMoney', 'sent'],
    ]);
  });

  it('marks the user prompt trusted: an argument the user typed is not tainted', async () => {
    const warden = clients.make(testOptions(server, { mode: 'enforce' }));
    const model = wrapLanguageModel({ model: scriptedModel(), middleware: wardenMiddleware(warden) });
    await warden.withRun({ name: 'pay' }, () =>
      generateText({
        model,
        tools: guardTools(warden, tools),
        prompt: 'Pay ACME for inv.txt',
        stopWhen: stepCountIs(5),
      }),
    );
    const [read] = server.requestsTo('/v1/guardrails/evaluate').map((r) => r.body as EvaluateBody);
    const path = read!.provenance.arguments.find((a) => a.path === 'path');
    expect(path).toMatchObject({ origin: 'user', tainted: false });
  });

  it('a blocked tool never runs in enforce mode and the model reads why', async () => {
    server.decide = (req) => ((req.tool as { name: string }).name === 'sendMoney' ? 'block' : 'allow');
    const warden = clients.make(testOptions(server, { mode: 'enforce' }));
    const mock = scriptedModel();
    const model = wrapLanguageModel({ model: mock, middleware: wardenMiddleware(warden) });
    await generateText({
      model,
      tools: guardTools(warden, tools),
      prompt: 'Pay invoice 7',
      stopWhen: stepCountIs(5),
    });
    await warden.flush();
    expect(ran).toEqual(['readInvoice inv.txt']);
    const lastPrompt = JSON.stringify(mock.doGenerateCalls[2]!.prompt);
    expect(lastPrompt).toContain('Agent Warden stopped the call to sendMoney');
    expect(server.eventsOfType('agent.tool.started').map((e) => e.data.toolName)).toEqual(['readInvoice']);
  });

  it("onBlock: 'throw' gives the AI SDK the guard's error (a tool error) and the tool never runs", async () => {
    server.decide = () => 'block';
    const warden = clients.make(testOptions(server, { mode: 'enforce' }));
    const result = await generateText({
      model: scriptedModel(),
      tools: guardTools(warden, tools, { onBlock: 'throw' }),
      prompt: 'Pay invoice 7',
      stopWhen: stepCountIs(1),
    });
    expect(ran).toEqual([]);
    const errors = result.steps[0]!.content.filter((p) => p.type === 'tool-error');
    expect(errors.map((e) => (e as { error: Error }).error.name)).toEqual(['GuardrailBlockedError']);
  });

  it('records a streamed call when its stream ends, and a failed call with its error', async () => {
    const warden = clients.make(testOptions(server));
    const streaming = new MockLanguageModelV4({
      provider: 'anthropic.messages',
      modelId: 'claude-x',
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'response-metadata', modelId: 'claude-x-2026' },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Hello' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: usage(7, 2) },
          ],
        }),
      },
    });
    const out = streamText({
      model: wrapLanguageModel({ model: streaming, middleware: wardenMiddleware(warden) }),
      prompt: 'Hi',
    });
    expect(await out.text).toBe('Hello');

    const failing = new MockLanguageModelV4({
      modelId: 'm-fail',
      doGenerate: async () => {
        throw new TypeError('upstream refused');
      },
    });
    await expect(
      generateText({
        model: wrapLanguageModel({ model: failing, middleware: wardenMiddleware(warden) }),
        prompt: 'Hi',
        maxRetries: 0,
      }),
    ).rejects.toThrow('upstream refused');
    await warden.flush();
    const calls = server.eventsOfType('agent.llm.called').map((c) => c.data);
    expect(calls[0]).toMatchObject({
      model: 'claude-x',
      provider: 'anthropic',
      responseModel: 'claude-x-2026',
      inputTokens: 7,
      outputTokens: 2,
      finishReasons: ['stop'],
    });
    expect(calls[1]).toMatchObject({
      model: 'm-fail',
      error: { message: 'upstream refused', type: 'TypeError' },
    });
  });

  it('refuses an unknown onBlock', () => {
    const warden = clients.make(testOptions(server));
    expect(() => guardTools(warden, tools, { onBlock: 'ignore' as 'message' })).toThrow(/onBlock/);
  });
});
