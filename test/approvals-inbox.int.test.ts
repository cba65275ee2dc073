import { WardenClient } from '@agent-warden/client';
import { newId } from '@agent-warden/contracts';
import { ApiConfig, start as startApi } from '@agent-warden/api';
import { silentLogger } from '@agent-warden/observability';
import { randomSuffix } from './support/env';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

const CSRF = { 'x-warden-csrf': '1' };

interface SseEvent {
  event: string;
  id?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
  data: any;
}

/** A server-sent-events reader over fetch: collects events until closed or the server ends it. */
async function openStream(baseUrl: string, headers: Record<string, string>) {
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/v1/approvals/stream`, { headers, signal: ac.signal });
  const events: SseEvent[] = [];
  const state = { ended: false };
  const done = (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const e: Partial<SseEvent> = {};
          for (const line of block.split('\n')) {
            const [k, ...rest] = line.split(': ');
            if (k === 'event') e.event = rest.join(': ');
            if (k === 'id') e.id = rest.join(': ');
            if (k === 'data') e.data = JSON.parse(rest.join(': '));
          }
          if (e.event) events.push(e as SseEvent);
        }
      }
    } catch {
      /* aborted */
    }
    state.ended = true;
  })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    state,
    done,
    /** The first event matching `pred` (waits up to 10 s). */
    next: (pred: (e: SseEvent) => boolean) => waitFor(async () => events.find(pred), 10_000, 20),
    close: () => ac.abort(),
  };
}

/**
 * The approvals inbox as people see it: pending and decided lists, the live stream fed by changes
 * made through another api process, and every transition on the session's timeline.
 */
describe('approvals inbox, stream and timeline', () => {
  let stack: TestStack;
  let other: { url: string; stop(): Promise<void> };
  let client: WardenClient;
  let viewerCookie: string;
  let approverCookieOther: string;

  const login = async (url: string, email: string) => {
    const r = await call(url, 'POST', '/v1/auth/login', {
      body: { email, password: 'a long password' },
      headers: CSRF,
    });
    expect(r.status).toBe(200);
    return r.headers.getSetCookie()[0]!.split(';')[0]!;
  };
  /** An enforce-mode evaluation straight to the gateway, with no client waiting on the approval. */
  const requireApproval = async (tool: string, args: Record<string, unknown>) => {
    const r = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      body: {
        agentId: client.agentId,
        sessionId: client.sessionId,
        mode: 'enforce',
        tool: { name: tool },
        arguments: args,
      },
    });
    expect(r.body.policyDecision).toBe('require_approval');
    return r.body.approval.id as string;
  };

  beforeAll(async () => {
    stack = await startTestStack();
    other = await startApi(
      ApiConfig.parse({
        PORT: '0',
        DATABASE_URL: stack.db.url,
        LOG_LEVEL: 'silent',
        WARDEN_JWT_SECRET: `other-api-secret-${randomSuffix()}-${randomSuffix()}-${randomSuffix()}`,
      }),
      silentLogger(),
    );
    const approval = (timeoutSeconds: number) => ({ timeoutSeconds, onTimeout: 'deny' });
    await stack.prisma.policy.createMany({
      data: [
        {
          id: newId(),
          projectId: stack.projectId,
          name: 'approve production deploys',
          decision: 'require_approval',
          match: { field: 'tool.name', op: 'eq', value: 'deploy' },
          approval: approval(600),
        },
        {
          id: newId(),
          projectId: stack.projectId,
          name: 'approve disk wipes',
          decision: 'require_approval',
          match: { field: 'tool.name', op: 'eq', value: 'wipe_disk' },
          approval: approval(1),
        },
      ],
    });
    for (const [email, role] of [
      ['viewer@example.com', 'viewer'],
      ['approver@example.com', 'approver'],
    ])
      await call(stack.apiUrl, 'POST', '/v1/users', {
        apiKey: stack.apiKey,
        body: { email, role, password: 'a long password' },
      });
    viewerCookie = await login(stack.apiUrl, 'viewer@example.com');
    // Signed in on the OTHER api process: its own session secret, the same database.
    approverCookieOther = await login(other.url, 'approver@example.com');

    client = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'inbox-agent', name: 'Inbox agent' },
      mode: 'enforce',
      flushIntervalMs: 200,
    });
    await client.ready();
    client.track('hello');
    await client.flush();
    await waitFor(async () => {
      const s = await call(stack.apiUrl, 'GET', `/v1/sessions/${client.sessionId}`, { apiKey: stack.apiKey });
      return s.status === 200;
    });
    // Policies reach the gateway within its refresh interval: wait with a dry run (creates nothing).
    await waitFor(async () => {
      const r = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
        apiKey: stack.apiKey,
        body: { agentId: client.agentId, mode: 'enforce', tool: { name: 'wipe_disk' }, dryRun: true },
      });
      return r.body.policyDecision === 'require_approval';
    });
  }, 180_000);
  afterAll(async () => {
    await client?.shutdown();
    await other?.stop();
    await stack?.stop();
  }, 60_000);

  test('the stream sends the pending list, then every change made through another api process', async () => {
    const deployId = await requireApproval('deploy', { service: 'billing', env: 'prod' });
    const stream = await openStream(stack.apiUrl, { cookie: viewerCookie });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toContain('text/event-stream');
    const snapshot = await stream.next((e) => e.event === 'snapshot');
    expect(snapshot.data.items).toEqual([
      expect.objectContaining({
        id: deployId,
        status: 'pending',
        toolName: 'deploy',
        request: expect.objectContaining({ arguments: { service: 'billing', env: 'prod' } }),
        agent: { id: client.agentId, key: 'inbox-agent', name: 'Inbox agent' },
        session: expect.objectContaining({ id: client.sessionId }),
        policy: { id: expect.any(String), name: 'approve production deploys' },
      }),
    ]);

    const decided = await call(other.url, 'POST', `/v1/approvals/${deployId}/decision`, {
      headers: { cookie: approverCookieOther, ...CSRF },
      body: { status: 'approved', comment: 'release window is open' },
    });
    expect(decided.status).toBe(200);
    const change = await stream.next(
      (e) => e.event === 'approval' && e.data.transition.toStatus === 'approved',
    );
    expect(change.data.transition).toMatchObject({
      approvalId: deployId,
      fromStatus: 'pending',
      actor: 'user:approver@example.com',
      comment: 'release window is open',
    });
    expect(change.data.approval).toMatchObject({
      id: deployId,
      status: 'approved',
      decidedBy: 'user:approver@example.com',
    });
    expect(change.id).toBe(change.data.transition.id);

    // Nobody waits on this one: the deadline passes and the timeout reaches the stream by itself.
    const wipeId = await requireApproval('wipe_disk', { disk: '/dev/sda' });
    const created = await stream.next((e) => e.event === 'approval' && e.data.approval.id === wipeId);
    expect(created.data.transition).toMatchObject({
      fromStatus: null,
      toStatus: 'pending',
      actor: 'gateway',
    });
    const expired = await stream.next(
      (e) =>
        e.event === 'approval' && e.data.approval.id === wipeId && e.data.transition.toStatus === 'expired',
    );
    expect(expired.data.transition).toMatchObject({ fromStatus: 'pending', actor: 'system:timeout' });
    stream.close();
    await stream.done;
  });

  test('pending and decided lists with keyset paging', async () => {
    const pending = await call(stack.apiUrl, 'GET', '/v1/approvals?status=pending', {
      headers: { cookie: viewerCookie },
    });
    expect(pending.status).toBe(200);
    expect(pending.body.items).toEqual([]);
    const decided = await call(stack.apiUrl, 'GET', '/v1/approvals?status=decided', {
      headers: { cookie: viewerCookie },
    });
    expect(
      decided.body.items.map((a: { toolName: string; status: string }) => `${a.toolName}:${a.status}`),
    ).toEqual(['wipe_disk:expired', 'deploy:approved']);
    const first = await call(stack.apiUrl, 'GET', '/v1/approvals?status=decided&limit=1', {
      apiKey: stack.apiKey,
    });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(
      stack.apiUrl,
      'GET',
      `/v1/approvals?status=decided&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      { apiKey: stack.apiKey },
    );
    expect(second.body.items.map((a: { toolName: string }) => a.toolName)).toEqual(['deploy']);
    expect(second.body.nextCursor).toBeNull();
  });

  test('the session timeline holds every transition: created → approved by a person, created → expired by timeout', async () => {
    const s = await call(stack.apiUrl, 'GET', `/v1/sessions/${client.sessionId}`, {
      headers: { cookie: viewerCookie },
    });
    expect(s.status).toBe(200);
    expect(
      s.body.approvalTransitions.map(
        (t: { toolName: string; fromStatus: string | null; toStatus: string; actor: string }) =>
          `${t.toolName}: ${t.fromStatus ?? '∅'} → ${t.toStatus} by ${t.actor}`,
      ),
    ).toEqual([
      'deploy: ∅ → pending by gateway',
      'deploy: pending → approved by user:approver@example.com',
      'wipe_disk: ∅ → pending by gateway',
      'wipe_disk: pending → expired by system:timeout',
    ]);
  });

  test('stopping an api ends its open streams, and stop() is not held up by them', async () => {
    const extra = await startApi(
      ApiConfig.parse({
        PORT: '0',
        DATABASE_URL: stack.db.url,
        LOG_LEVEL: 'silent',
        WARDEN_JWT_SECRET: `third-api-secret-${randomSuffix()}-${randomSuffix()}-${randomSuffix()}`,
      }),
      silentLogger(),
    );
    const stream = await openStream(extra.url, { authorization: `Bearer ${stack.apiKey}` });
    await stream.next((e) => e.event === 'snapshot');
    await extra.stop();
    await stream.done;
    expect(stream.state.ended).toBe(true);
  });
});
