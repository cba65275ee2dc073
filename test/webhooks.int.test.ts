import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WardenClient } from '@agent-warden/client';
import { newId } from '@agent-warden/contracts';
import { pruneWebhookDeliveries } from '@agent-warden/db';
import { call, waitFor } from './support/http';
import { startTestStack, type ProjectorProcess, type TestStack } from './support/stack';

/** One request the receiver got. */
interface Received {
  path: string;
  id: string;
  headers: Record<string, string>;
  body: string;
  /** The status the receiver answered. */
  answered: number;
  /** Parsed body when its signature verified with the subscription's secret; null when it did not. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
  verified: any;
}

/**
 * A webhook receiver over node:http, as a customer would run one: verifies every request's
 * signature with the `standardwebhooks` reference library (not our signing code) and the secret
 * of the subscription its path names, and answers 500 to the next `failures[path]` requests.
 */
async function startReceiver() {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const failures = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
      );
      let verified: unknown;
      try {
        verified = new Webhook(secrets.get(path) ?? 'whsec_AAAA').verify(body, headers);
      } catch {
        verified = null;
      }
      const fail = failures.get(path) ?? 0;
      if (fail > 0) failures.set(path, fail - 1);
      const answered = fail > 0 ? 500 : 204;
      received.push({ path, id: headers['webhook-id'] ?? '', headers, body, answered, verified });
      res.statusCode = answered;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    secrets,
    failures,
    /** Requests to `path` whose body has this `type` (json) or whose text mentions it (slack). */
    of: (path: string, pred: (r: Received) => boolean) => received.filter((r) => r.path === path && pred(r)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Webhook notifications on the real stack (docs/operations.md#notifications): subscriptions through
 * the API, approvals requested / decided / expired and a block delivered by the worker process,
 * signed and verified by an independent receiver, retried after 500s with the same webhook-id, and
 * nothing lost or duplicated across a SIGKILL of the worker.
 */
describe('webhook notifications', () => {
  let stack: TestStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: ProjectorProcess | null = null;
  let client: WardenClient;
  let jsonSub: { id: string; secret: string };
  let slackSub: { id: string; secret: string };

  const api = (method: string, path: string, body?: unknown) =>
    call(stack.apiUrl, method, path, { apiKey: stack.apiKey, body });
  const evaluate = async (tool: string) =>
    (
      await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
        apiKey: stack.apiKey,
        body: { agentId: client.agentId, sessionId: client.sessionId, mode: 'enforce', tool: { name: tool } },
      })
    ).body;
  const deliveriesOf = (subscriptionId: string) =>
    stack.prisma.webhookDelivery.findMany({ where: { subscriptionId }, orderBy: { createdAt: 'asc' } });
  /** The JSON deliveries the receiver accepted (2xx) for one event type. */
  const accepted = (type: string) =>
    receiver.of('/json', (r) => r.answered < 300 && r.verified?.type === type);

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startTestStack({
      env: {
        WARDEN_WEBHOOK_POLL_MS: '100',
        WARDEN_WEBHOOK_BACKOFF_MS: '300',
        WARDEN_WEBHOOK_BACKOFF_MAX_MS: '1000',
        WARDEN_WEBHOOK_ATTEMPTS: '100',
        WARDEN_WEBHOOK_TIMEOUT_MS: '2000',
        WARDEN_PUBLIC_URL: 'https://warden.example.com/',
      },
    });
    const policy = (name: string, decision: string, tool: string, approval?: object) => ({
      id: newId(),
      projectId: stack.projectId,
      name,
      decision,
      match: { field: 'tool.name', op: 'eq', value: tool },
      ...(approval ? { approval } : {}),
    });
    await stack.prisma.policy.createMany({
      data: [
        policy('approve deploys', 'require_approval', 'deploy', { timeoutSeconds: 600, onTimeout: 'deny' }),
        policy('approve wipes quickly', 'require_approval', 'wipe_disk', {
          timeoutSeconds: 1,
          onTimeout: 'deny',
        }),
        policy('never drop tables', 'block', 'drop_table'),
      ],
    });
    client = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'webhook-agent' },
      mode: 'enforce',
      flushIntervalMs: 200,
    });
    await client.ready();
    await waitFor(async () => {
      const r = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
        apiKey: stack.apiKey,
        body: { agentId: client.agentId, mode: 'enforce', tool: { name: 'drop_table' }, dryRun: true },
      });
      return r.body.policyDecision === 'block';
    });
  }, 180_000);
  afterAll(async () => {
    await client?.shutdown();
    await stack?.stop();
    await receiver?.close();
  }, 60_000);

  test('bad subscriptions are refused with problem+json naming the path', async () => {
    const r = await api('POST', '/v1/webhooks', {
      url: 'ftp://example.com/hook',
      eventTypes: ['approval.requested', 'approval.exploded'],
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['eventTypes.1', 'url']);
    const none = await api('POST', '/v1/webhooks', { url: 'https://example.com', eventTypes: [] });
    expect(none.status).toBe(400);
    expect(none.body.errors.map((e: { path: string }) => e.path)).toEqual(['eventTypes']);
    expect(await stack.prisma.webhookSubscription.count()).toBe(0);
  });

  test('a subscription answers its secret once and never in a later read', async () => {
    const created = await api('POST', '/v1/webhooks', {
      url: `${receiver.url}/json`,
      eventTypes: ['approval.requested', 'approval.decided', 'approval.expired', 'guard.blocked'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body.secret).toMatch(/^whsec_/);
    jsonSub = { id: created.body.id, secret: created.body.secret };
    receiver.secrets.set('/json', jsonSub.secret);
    const slack = await api('POST', '/v1/webhooks', {
      url: `${receiver.url}/slack`,
      eventTypes: ['approval.requested'],
      format: 'slack',
    });
    expect(slack.status).toBe(201);
    slackSub = { id: slack.body.id, secret: slack.body.secret };
    receiver.secrets.set('/slack', slackSub.secret);

    const list = await api('GET', '/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(2);
    expect(JSON.stringify(list.body)).not.toContain(jsonSub.secret);
    expect(list.body.items[0]).toMatchObject({
      id: jsonSub.id,
      format: 'json',
      enabled: true,
      url: `${receiver.url}/json`,
    });
    const stored = await stack.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: jsonSub.id } });
    expect(stored.secret).toBe(jsonSub.secret);
    expect(stored.createdBy).toMatch(/^api-key:/);
    const audit = await stack.prisma.auditLog.findMany({ where: { action: 'webhook.created' } });
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toContain(jsonSub.secret);
  });

  test('approval requested is delivered signed after two 500s, every attempt with the same webhook-id', async () => {
    receiver.failures.set('/json', 2);
    worker = await stack.startIntelligence();
    const held = await evaluate('deploy');
    expect(held.policyDecision).toBe('require_approval');
    const approvalId = held.approval.id as string;

    const ok = await waitFor(async () => accepted('approval.requested')[0], 30_000);
    expect(ok.verified.data.approval).toMatchObject({
      id: approvalId,
      status: 'pending',
      toolName: 'deploy',
    });
    expect(ok.verified.data.url).toBe(`https://warden.example.com/approvals?approval=${approvalId}`);
    const attempts = receiver.of('/json', (r) => r.id === ok.id);
    expect(attempts.map((r) => r.answered)).toEqual([500, 500, 204]);
    // Every attempt is signed (verified) and carries the same bytes.
    expect(attempts.every((r) => r.verified && r.body === ok.body)).toBe(true);

    const [row] = (await deliveriesOf(jsonSub.id)).filter((d) => d.eventType === 'approval.requested');
    expect(row).toMatchObject({
      id: ok.id,
      status: 'delivered',
      attempts: 3,
      lastStatusCode: 204,
      lastError: null,
    });
    expect(row!.deliveredAt).not.toBeNull();

    // The Slack subscription gets a Slack message with a button to the approval.
    const slack = await waitFor(async () => receiver.of('/slack', (r) => r.verified !== null)[0]);
    expect(slack.verified.text).toContain('Approval requested for `deploy`');
    expect(slack.verified.blocks[1].elements[0].url).toBe(
      `https://warden.example.com/approvals?approval=${approvalId}`,
    );

    // The delivery log through the API.
    const log = await api('GET', `/v1/webhooks/${jsonSub.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.items[0]).toMatchObject({
      id: ok.id,
      status: 'delivered',
      attempts: 3,
      nextAttemptAt: null,
    });

    // Decided through the API: approval.decided, delivered once.
    const decided = await api('POST', `/v1/approvals/${approvalId}/decision`, {
      status: 'denied',
      comment: 'not today',
    });
    expect(decided.status).toBe(200);
    const d = await waitFor(async () => accepted('approval.decided')[0]);
    expect(d.verified.data.approval).toMatchObject({
      id: approvalId,
      status: 'denied',
      fromStatus: 'pending',
      comment: 'not today',
    });
  }, 60_000);

  test('a block is delivered once the evaluation is recorded', async () => {
    const r = await evaluate('drop_table');
    expect(r.policyDecision).toBe('block');
    const b = await waitFor(async () => accepted('guard.blocked')[0], 30_000);
    expect(b.verified.data.evaluation).toMatchObject({
      id: r.evaluationId,
      toolName: 'drop_table',
      effectiveDecision: 'block',
    });
    expect(b.verified.data.url).toBe(`https://warden.example.com/sessions/${client.sessionId}`);
  }, 60_000);

  test('an approval nobody decides is notified as expired', async () => {
    const held = await evaluate('wipe_disk');
    const e = await waitFor(
      async () => accepted('approval.expired').find((x) => x.verified.data.approval.id === held.approval.id),
      30_000,
    );
    expect(e.verified.data.approval).toMatchObject({ status: 'expired', actor: 'system:timeout' });
  }, 60_000);

  test('a SIGKILL of the worker between attempts loses and duplicates nothing', async () => {
    receiver.failures.set('/json', 1_000_000);
    const before = receiver.received.length;
    const held = await evaluate('deploy');
    // Attempts fail (500) and are recorded; then the worker dies.
    await waitFor(async () => {
      const rows = await deliveriesOf(jsonSub.id);
      return rows.find(
        (x) =>
          x.eventType === 'approval.requested' &&
          x.attempts >= 1 &&
          x.status === 'pending' &&
          x.lastStatusCode === 500,
      );
    }, 30_000);
    await worker!.kill();
    receiver.failures.set('/json', 0);
    // Events while no worker runs are kept as pending rows.
    const blocked = await evaluate('drop_table');
    await waitFor(async () => {
      const rows = await deliveriesOf(jsonSub.id);
      return rows.find((x) => x.eventType === 'guard.blocked' && x.eventId === blocked.evaluationId);
    }, 30_000);
    worker = await stack.startIntelligence();

    const requested = await waitFor(async () =>
      accepted('approval.requested').find((x) => x.verified.data.approval.id === held.approval.id),
    );
    await waitFor(async () =>
      accepted('guard.blocked').find((x) => x.verified.data.evaluation.id === blocked.evaluationId),
    );
    const tries = receiver.received.slice(before).filter((r) => r.id === requested.id);
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries.map((r) => r.answered)).toEqual([...tries.slice(1).map(() => 500), 204]);
    expect(tries.every((r) => r.body === requested.body)).toBe(true);
    const row = (await deliveriesOf(jsonSub.id)).find((r) => r.id === requested.id);
    expect(row).toMatchObject({ status: 'delivered', attempts: tries.length });
    // Each event accepted exactly once, under one webhook-id; every stored delivery was accepted.
    const acceptedIds = receiver.received
      .filter((r) => r.path === '/json' && r.answered < 300)
      .map((r) => r.id);
    expect(new Set(acceptedIds).size).toBe(acceptedIds.length);
    const rows = await deliveriesOf(jsonSub.id);
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(rows.length);
    expect(
      rows
        .filter((r) => r.status === 'delivered')
        .map((r) => r.id)
        .sort(),
    ).toEqual([...acceptedIds].sort());
  }, 90_000);

  test('test ping, update and delete through the API', async () => {
    const ping = await api('POST', `/v1/webhooks/${slackSub.id}/test`);
    expect(ping.status).toBe(202);
    const got = await waitFor(
      async () => receiver.of('/slack', (r) => r.id === ping.body.id && r.verified !== null)[0],
    );
    expect(got.verified.text).toContain('webhook test');

    const off = await api('PATCH', `/v1/webhooks/${slackSub.id}`, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    expect(off.body.secret).toBeUndefined();
    const bad = await api('PATCH', `/v1/webhooks/${slackSub.id}`, { url: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('url');
    const slackBefore = (await deliveriesOf(slackSub.id)).length;
    const held = await evaluate('deploy');
    // A disabled subscription gets no new deliveries (the enabled one does).
    await waitFor(async () =>
      accepted('approval.requested').find((x) => x.verified.data.approval.id === held.approval.id),
    );
    expect(await deliveriesOf(slackSub.id)).toHaveLength(slackBefore);

    const del = await api('DELETE', `/v1/webhooks/${slackSub.id}`);
    expect(del.status).toBe(204);
    expect(await stack.prisma.webhookSubscription.findUnique({ where: { id: slackSub.id } })).toBeNull();
    expect(await deliveriesOf(slackSub.id)).toHaveLength(0);
    expect((await api('GET', `/v1/webhooks/${slackSub.id}/deliveries`)).status).toBe(404);
  }, 60_000);

  test('the delivery log keeps pending deliveries and drops finished ones past the retention', async () => {
    const rows = await deliveriesOf(jsonSub.id);
    const delivered = rows.find((r) => r.status === 'delivered')!;
    const old = new Date(Date.now() - 40 * 86_400_000);
    const pending = await stack.prisma.webhookDelivery.create({
      data: {
        id: newId(),
        projectId: stack.projectId,
        subscriptionId: jsonSub.id,
        eventId: newId(),
        eventType: 'guard.blocked',
        createdAt: old,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
      },
    });
    await stack.prisma.webhookDelivery.update({ where: { id: delivered.id }, data: { createdAt: old } });
    expect(await pruneWebhookDeliveries(stack.prisma, new Date(Date.now() - 30 * 86_400_000))).toBe(1);
    const left = await deliveriesOf(jsonSub.id);
    expect(left.map((r) => r.id)).not.toContain(delivered.id);
    expect(left.map((r) => r.id)).toContain(pending.id);
    expect(left).toHaveLength(rows.length);
  });
});
