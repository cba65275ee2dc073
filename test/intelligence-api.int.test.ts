import { newId } from '@agent-warden/contracts';
import { unguardedDestructiveSession } from './support/sessions';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * The intelligence and recommendations API on the real stack (gateway → Kafka → projector →
 * PostgreSQL, session-ready jobs on BullMQ → intelligence worker): read a session's intelligence,
 * regenerate it, and accept or dismiss its recommendations.
 */
describe('api: session intelligence and recommendations', () => {
  let stack: TestStack;
  let sessionId: string;
  beforeAll(async () => {
    stack = await startTestStack({ intelligence: true });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const get = (path: string) => call(stack.apiUrl, 'GET', path, { apiKey: stack.apiKey });
  const post = (path: string, body?: unknown) =>
    call(stack.apiUrl, 'POST', path, { apiKey: stack.apiKey, body });

  /** Sends one session in which two destructive tools (delete_file, cancel_order) ran unguarded. */
  async function sendSession(): Promise<string> {
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'intelligence-api-agent' } },
    });
    expect(id.status).toBe(200);
    const { agentId, agentVersionId } = id.body;
    const session = newId();
    const runId = newId();
    const events = unguardedDestructiveSession(
      { sessionId: session, runId, agentId, agentVersionId },
      Date.now(),
    );
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, body: { events } });
    expect(r.status).toBe(202);
    expect(r.body.rejected).toEqual([]);
    return session;
  }

  test('a session that ended has intelligence (version 1) with its recommendations', async () => {
    sessionId = await sendSession();
    const v1 = await waitFor(async () => {
      const r = await get(`/v1/sessions/${sessionId}/intelligence`);
      return r.status === 200 && r.body;
    }, 60_000);
    expect(v1).toMatchObject({ sessionId, version: 1, status: 'current', reason: 'ended', eventCount: 8 });
    expect(v1.summary.figures.toolCalls).toBe(2);
    const kinds = v1.recommendations.map((r: { title: string }) => r.title).sort();
    expect(kinds).toEqual(['Require approval for cancel_order', 'Require approval for delete_file']);
    for (const rec of v1.recommendations) {
      expect(rec).toMatchObject({ status: 'open', policyId: null, intelligenceId: v1.id });
      expect(rec.policy.enabled).toBe(false);
    }

    const list = await get(`/v1/recommendations?sessionId=${sessionId}&status=open`);
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    const page = await get(`/v1/recommendations?sessionId=${sessionId}&limit=1`);
    expect(page.body.items).toHaveLength(1);
    const next = await get(
      `/v1/recommendations?sessionId=${sessionId}&limit=1&cursor=${page.body.nextCursor}`,
    );
    expect(next.body.items).toHaveLength(1);
    expect(next.body.items[0].id).not.toBe(page.body.items[0].id);
    expect(next.body.nextCursor).toBeNull();

    expect((await get(`/v1/sessions/${newId()}/intelligence`)).status).toBe(404);
  }, 90_000);

  test('accepting creates a disabled draft policy linked back; dismissing records it; a second decision is 409', async () => {
    const { body } = await get(`/v1/recommendations?sessionId=${sessionId}&status=open`);
    const byTitle = Object.fromEntries(body.items.map((r: { title: string; id: string }) => [r.title, r.id]));
    const acceptId = byTitle['Require approval for delete_file'];
    const dismissId = byTitle['Require approval for cancel_order'];

    const accepted = await post(`/v1/recommendations/${acceptId}/decision`, { status: 'accepted' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: acceptId, status: 'accepted', policyId: expect.any(String) });
    expect(accepted.body.decidedBy).toMatch(/^api-key:/);
    const policy = await get(`/v1/policies/${accepted.body.policyId}`);
    expect(policy.status).toBe(200);
    expect(policy.body).toMatchObject({
      name: 'Require approval for delete_file',
      enabled: false,
      decision: 'require_approval',
      version: 1,
    });
    expect(policy.body.description).toContain(acceptId);

    const dismissed = await post(`/v1/recommendations/${dismissId}/decision`, { status: 'dismissed' });
    expect(dismissed.status).toBe(200);
    expect(dismissed.body).toMatchObject({ status: 'dismissed', policyId: null });

    const again = await post(`/v1/recommendations/${acceptId}/decision`, { status: 'dismissed' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    expect((await post(`/v1/recommendations/${dismissId}/decision`, { status: 'accepted' })).status).toBe(
      409,
    );
    expect((await post(`/v1/recommendations/${newId()}/decision`, { status: 'accepted' })).status).toBe(404);
    expect((await post(`/v1/recommendations/${dismissId}/decision`, { status: 'maybe' })).status).toBe(400);

    // Exactly one policy was created (the dismissed one made none, the 409s none).
    const policies = await get('/v1/policies');
    expect(policies.body.items.map((p: { name: string }) => p.name)).toEqual([
      'Require approval for delete_file',
    ]);
  });

  test('regenerate makes version 2 (reason manual); decided recommendations are not proposed again', async () => {
    const r = await post(`/v1/sessions/${sessionId}/intelligence`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ sessionId, reason: 'manual', jobId: expect.any(String) });

    const versions = await waitFor(async () => {
      const v = await get(`/v1/sessions/${sessionId}/intelligence/versions`);
      return v.body.items?.length === 2 && v.body.items;
    }, 60_000);
    expect(
      versions.map((v: { version: number; status: string; reason: string }) => [
        v.version,
        v.status,
        v.reason,
      ]),
    ).toEqual([
      [2, 'current', 'manual'],
      [1, 'stale', 'ended'],
    ]);
    const latest = await get(`/v1/sessions/${sessionId}/intelligence`);
    expect(latest.body).toMatchObject({ version: 2, recommendations: [] });
    const v1 = await get(`/v1/sessions/${sessionId}/intelligence?version=1`);
    expect(v1.body).toMatchObject({ version: 1, status: 'stale' });
    expect(v1.body.recommendations.map((x: { status: string }) => x.status).sort()).toEqual([
      'accepted',
      'dismissed',
    ]);
    expect((await get(`/v1/sessions/${sessionId}/intelligence?version=3`)).status).toBe(404);

    const all = await get(`/v1/recommendations?sessionId=${sessionId}`);
    expect(all.body.items.map((x: { status: string }) => x.status).sort()).toEqual(['accepted', 'dismissed']);

    const failed = await get('/v1/intelligence/jobs/failed');
    expect(failed.status).toBe(200);
    expect(failed.body.items).toEqual([]);
  }, 90_000);
});
