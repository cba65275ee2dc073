import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { WardenClient } from '@agent-warden/client';
import { guardTools, wardenMiddleware } from '../clients/typescript/src/integrations/ai-sdk';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * The Vercel AI SDK adapter (clients/typescript/src/integrations/ai-sdk.ts) on the real stack: the
 * real `generateText` drives the SDK's own mock model (`MockLanguageModelV4`), which reads an
 * invoice, then tries to pay it. A policy blocks `send_money`: in enforce mode its code never runs
 * and the model reads why. Read back through the API: the session's run, its tool calls, the
 * evaluation, and the LLM call events with their tokens.
 */
describe('AI SDK adapter: wardenMiddleware + guardTools on the real stack', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
    const r = await call(stack.apiUrl, 'POST', '/v1/policies/import', {
      apiKey: stack.apiKey,
      body: {
        format: 'agent-warden.policies/v1',
        policies: [
          {
            name: 'adapters: no payments',
            decision: 'block',
            description: 'Blocks send_money, for the AI SDK adapter test.',
            match: { field: 'tool.name', op: 'eq', value: 'send_money' },
          },
        ],
      },
    });
    expect(r.status).toBe(200);
    // The gateway picks the policy up within its refresh interval.
    const probe = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'ai-probe' },
    });
    await waitFor(async () => {
      const d = await probe.guard({ tool: { name: 'send_money' } });
      return d.policyDecision === 'block' ? d : undefined;
    }, 30_000);
    await probe.shutdown();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  test('LLM calls with tokens and tool calls are stored; the blocked payment never runs', async () => {
    const usage = (input: number, output: number) => ({
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: output, reasoning: undefined },
    });
    const toolCall = (id: string, toolName: string, input: Record<string, unknown>) => ({
      type: 'tool-call' as const,
      toolCallId: id,
      toolName,
      input: JSON.stringify(input),
    });
    const mock = new MockLanguageModelV4({
      provider: 'openai.chat',
      modelId: 'gpt-4o-mini',
      doGenerate: [
        {
          content: [toolCall('c1', 'read_invoice', { path: 'inv.txt' })],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: usage(50, 10),
          warnings: [],
        },
        {
          content: [toolCall('c2', 'send_money', { recipient: 'ACME', amount: 120 })],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: usage(80, 12),
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'I could not pay: the payment was blocked.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: usage(100, 4),
          warnings: [],
        },
      ],
    });
    const ran: string[] = [];
    const tools = {
      read_invoice: tool({
        description: 'Reads an invoice',
        inputSchema: z.object({ path: z.string() }),
        execute: async () => {
          ran.push('read_invoice');
          return 'Invoice 7, 120 EUR';
        },
      }),
      send_money: tool({
        description: 'Sends money',
        inputSchema: z.object({ recipient: z.string(), amount: z.number() }),
        execute: async () => {
          ran.push('send_money');
          return 'sent';
        },
      }),
    };
    const warden = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'ai-sdk-agent' },
      mode: 'enforce',
      logger: { warn: () => undefined, error: () => undefined },
    });
    const model = wrapLanguageModel({ model: mock, middleware: wardenMiddleware(warden) });
    const result = await warden.withRun({ name: 'pay-invoice', inputSummary: 'Pay invoice 7' }, () =>
      generateText({
        model,
        tools: guardTools(warden, tools),
        prompt: 'Pay invoice 7',
        stopWhen: stepCountIs(5),
      }),
    );
    await warden.shutdown();

    expect(ran).toEqual(['read_invoice']);
    expect(result.text).toContain('blocked');
    expect(JSON.stringify(mock.doGenerateCalls[2]!.prompt)).toContain(
      'Agent Warden stopped the call to send_money',
    );

    type Ev = { type: string; runId: string | null; data: Record<string, unknown> };
    const session = await waitFor(async () => {
      const r = await call(stack.apiUrl, 'GET', `/v1/sessions/${warden.sessionId}`, { apiKey: stack.apiKey });
      const events = (r.body?.events ?? []) as Ev[];
      const done =
        events.filter((e) => e.type === 'agent.llm.called').length === 3 &&
        events.some((e) => e.type === 'agent.run.completed');
      return r.status === 200 && done
        ? (r.body as { runs: Array<{ id: string; name: string }>; events: Ev[] })
        : undefined;
    }, 60_000);
    const [run] = session.runs;
    expect(session.runs.map((r) => r.name)).toEqual(['pay-invoice']);
    const of = (type: string) => session.events.filter((e) => e.type === type);
    expect(
      of('agent.llm.called').map((e) => [e.runId, e.data.model, e.data.inputTokens, e.data.outputTokens]),
    ).toEqual([
      [run!.id, 'gpt-4o-mini', 50, 10],
      [run!.id, 'gpt-4o-mini', 80, 12],
      [run!.id, 'gpt-4o-mini', 100, 4],
    ]);
    expect(of('agent.tool.completed').map((e) => [e.runId, e.data.toolName, e.data.result])).toEqual([
      [run!.id, 'read_invoice', 'Invoice 7, 120 EUR'],
    ]);
    expect(of('agent.tool.started').map((e) => e.data.toolName)).toEqual(['read_invoice']);

    const evaluations = await waitFor(async () => {
      const r = await call(stack.apiUrl, 'GET', `/v1/sessions/${warden.sessionId}/evaluations`, {
        apiKey: stack.apiKey,
      });
      const items = (r.body?.items ?? []) as Array<{
        toolName: string;
        policyDecision: string;
        effectiveDecision: string;
      }>;
      return items.length >= 2 ? items : undefined;
    }, 60_000);
    expect(evaluations.find((e) => e.toolName === 'send_money')).toMatchObject({
      policyDecision: 'block',
      effectiveDecision: 'block',
    });
  }, 120_000);
});
