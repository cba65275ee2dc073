import { newId, toCloudEvent, AgentEvent, type DeadLetterRecord } from '@agent-warden/contracts';
import type { AgentEvent as AgentEventT } from '@agent-warden/contracts';
import { requireEnv } from './support/env';
import { call, waitFor } from './support/http';
import { produceRaw, readTopic } from './support/kafka';
import { startTestStack, type TestStack } from './support/stack';

/** Records that can never be stored go to the dead-letter topic with the reason; processing continues. */
describe('projector: dead-letter topic', () => {
  let stack: TestStack;
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  beforeAll(async () => {
    stack = await startTestStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('unparseable, invalid and unstorable records are dead-lettered; the valid ones around them are stored', async () => {
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'dlq-agent' } },
    });
    const { agentId, agentVersionId } = id.body;
    const sessionId = newId();
    const valid = (sequence: number) =>
      AgentEvent.parse({
        id: newId(),
        type: 'agent.custom',
        time: new Date().toISOString(),
        sessionId,
        agentId,
        agentVersionId,
        sequence,
        data: { name: 'ok' },
      }) as AgentEventT;
    const before = valid(1);
    const after = valid(2);
    const unstorable = toCloudEvent('not-a-project-uuid', valid(3)); // valid event, but the database refuses the project id
    await produceRaw(brokers, `${stack.topicPrefix}agent-events`, [
      { key: sessionId, value: JSON.stringify(toCloudEvent(stack.projectId, before)) },
      { key: sessionId, value: '{"this is": not json' },
      {
        key: sessionId,
        value: JSON.stringify({
          specversion: '1.0',
          id: 'x',
          source: '/x',
          type: 'agent.custom',
          projectid: stack.projectId,
          data: {},
        }),
      },
      { key: sessionId, value: JSON.stringify(unstorable) },
      { key: sessionId, value: JSON.stringify(toCloudEvent(stack.projectId, after)) },
    ]);

    const session = await waitFor(async () => {
      const s = await call(stack.apiUrl, 'GET', `/v1/sessions/${sessionId}`, { apiKey: stack.apiKey });
      return s.status === 200 && s.body.events.length === 2 ? s.body : undefined;
    }, 60_000);
    expect(session.events.map((e: { id: string }) => e.id)).toEqual([before.id, after.id]);

    const dead = (await readTopic(brokers, `${stack.topicPrefix}agent-events.dlq`, 3, 60_000)).map(
      (r) => JSON.parse(r.value!) as DeadLetterRecord,
    );
    expect(dead.map((d) => d.code).sort()).toEqual(['invalid_event', 'storage_rejected', 'unparseable']);
    for (const d of dead) {
      expect(d.sourceTopic).toBe('agent-events');
      expect(d.reason.length).toBeGreaterThan(5);
      expect(d.key).toBe(sessionId);
      expect(d.offset).toMatch(/^\d+$/);
    }
    expect(dead.find((d) => d.code === 'unparseable')!.value).toBe('{"this is": not json');
  }, 120_000);
});
