import { newId } from '@agent-warden/contracts';
import { FakeWarden } from './fake-warden';
import { captureLogger, Clients, testOptions } from './helpers';

let server: FakeWarden;
const clients = new Clients();

beforeEach(async () => {
  server = await new FakeWarden().start();
});
afterEach(async () => {
  await clients.shutdownAll();
  await server.stop();
  // Every event sent is checked against the contract (AgentEvent) by the fake service.
  expect(server.contractViolations).toEqual([]);
});

describe('trackLlmCall(...) (docs/architecture.md#llm-calls)', () => {
  it('records the call on the run inside withRun and on the session outside it, with its usage and latency', async () => {
    const client = clients.make(testOptions(server));
    let runId = '';
    await client.withRun({ name: 'answer' }, async (run) => {
      runId = run.runId;
      run.trackLlmCall({
        model: 'gpt-4o-mini',
        provider: 'openai',
        inputTokens: 812,
        outputTokens: 64,
        cachedInputTokens: 512,
        durationMs: 930.5,
        finishReasons: ['tool_calls'],
      });
    });
    const llmCallId = newId();
    const id = client.trackLlmCall({ model: 'm-1', costUsd: 0.0125, operation: 'embeddings', llmCallId });
    await client.flush();

    const calls = server.eventsOfType('agent.llm.called');
    expect(calls.map((e) => [e.runId ?? null, e.data])).toEqual([
      [
        runId,
        {
          operation: 'chat',
          provider: 'openai',
          model: 'gpt-4o-mini',
          inputTokens: 812,
          outputTokens: 64,
          cachedInputTokens: 512,
          durationMs: 930.5,
          finishReasons: ['tool_calls'],
        },
      ],
      [null, { llmCallId, operation: 'embeddings', model: 'm-1', costUsd: 0.0125 }],
    ]);
    expect(calls[1]!.id).toBe(id);
  });

  it('keeps a failed call with the error name as its type', async () => {
    const client = clients.make(testOptions(server));
    client.trackLlmCall({ model: 'm', error: new RangeError('context length exceeded'), durationMs: 12 });
    client.trackLlmCall({ model: 'm', error: { message: 'overloaded', type: '529' } });
    await client.flush();
    expect(server.eventsOfType('agent.llm.called').map((e) => (e.data as { error: unknown }).error)).toEqual([
      { message: 'context length exceeded', type: 'RangeError' },
      { message: 'overloaded', type: '529' },
    ]);
  });

  it('sends nothing and logs an error for input that cannot be an LLM call, and never throws', async () => {
    const logger = captureLogger();
    const client = clients.make(testOptions(server, { logger }));
    const bad = [
      { model: '' },
      { model: 'm', inputTokens: -1 },
      { model: 'm', outputTokens: 1.5 },
      { model: 'm', durationMs: Number.NaN },
      { model: 'm', costUsd: -1 },
      { model: 'm', llmCallId: 'not-a-uuid' },
      undefined as unknown as { model: string },
    ];
    for (const input of bad) expect(client.trackLlmCall(input)).toBe('');
    await client.flush();
    expect(server.eventsOfType('agent.llm.called')).toEqual([]);
    expect(logger.lines.filter((l) => l.message === 'warden llm call not recorded')).toHaveLength(bad.length);
  });
});
