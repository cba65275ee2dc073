import { start as startGateway, type RunningGateway } from '@agent-warden/gateway';
import { silentLogger } from '@agent-warden/observability';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * Evaluations are recorded off the request path (docs/decisions.md): the answer does not wait for
 * Kafka, yet every evaluation reaches `guardrail_evaluations` exactly once — also those still
 * buffered in a gateway when it is stopped.
 */
describe('stack: evaluation records after the answer', () => {
  let stack: TestStack;
  let agentId: string;
  beforeAll(async () => {
    stack = await startTestStack();
    const r = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'recording-agent', name: 'recording agent' }, version: { version: '1' } },
    });
    expect(r.status).toBe(200);
    agentId = r.body.agentId;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const evaluateMany = async (gatewayUrl: string, n: number, tag: string): Promise<string[]> => {
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
          apiKey: stack.apiKey,
          body: { agentId, tool: { name: `${tag}_${i}` }, arguments: { i }, mode: 'monitor' },
        }),
      ),
    );
    for (const a of answers) expect(a.status).toBe(200);
    return answers.map((a) => a.body.evaluationId as string);
  };

  /** Rows of `guardrail_evaluations` with these ids, once the projector stored them all. */
  const storedRows = (ids: string[]) =>
    waitFor(async () => {
      const rows = await stack.prisma.guardrailEvaluation.findMany({
        where: { id: { in: ids } },
        select: { id: true },
      });
      return rows.length >= ids.length ? rows : undefined;
    }, 60_000);

  test('evaluations made quickly are all stored, each once', async () => {
    const ids = await evaluateMany(stack.gatewayUrl, 300, 'burst');
    expect(new Set(ids).size).toBe(300);
    const rows = await storedRows(ids);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    const toolRows = await stack.prisma.guardrailEvaluation.count({
      where: { projectId: stack.projectId, toolName: { startsWith: 'burst_' } },
    });
    expect(toolRows).toBe(300);
  }, 120_000);

  test('evaluations still buffered when a gateway stops are published by its shutdown', async () => {
    // A second gateway on the same topics whose recorder would wait a minute before publishing.
    let gateway: RunningGateway | undefined = await startGateway(
      {
        PORT: 0,
        DATABASE_URL: stack.db.url,
        KAFKA_BROKERS: stack.env.KAFKA_BROKERS!.split(','),
        KAFKA_TOPIC_PREFIX: stack.topicPrefix,
        WARDEN_EVENT_PARTITIONS: 3,
        WARDEN_MAX_BODY_BYTES: 1024 * 1024,
        WARDEN_MAX_EVENTS_PER_BATCH: 100,
        WARDEN_MAX_EVENT_BYTES: 64 * 1024,
        WARDEN_APPROVAL_TIMEOUT_SECONDS: 30,
        WARDEN_POLICY_REFRESH_MS: 500,
        WARDEN_EVALUATION_FLUSH_MS: 60_000,
        WARDEN_EVALUATION_BATCH_MAX: 1_000,
        WARDEN_EVALUATION_BUFFER_MAX: 1_000,
        WARDEN_EVALUATION_BUFFER_MAX_BYTES: 1024 * 1024,
        LOG_LEVEL: 'silent',
      },
      silentLogger(),
    );
    try {
      const ids = await evaluateMany(gateway.url, 50, 'shutdown');
      const ready = await call(gateway.url, 'GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.evaluationRecorder).toMatchObject({ buffered: 50, published: 0 });
      await gateway.stop();
      gateway = undefined;
      const rows = await storedRows(ids);
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    } finally {
      await gateway?.stop();
    }
  }, 120_000);
});
