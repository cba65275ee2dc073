import { WardenClient, GuardrailBlockedError, ApprovalTimeoutError } from '@agent-warden/client';
import { newId } from '@agent-warden/contracts';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/** Guard decisions from policies stored in PostgreSQL, approvals and the long poll, on the real stack. */
describe('stack: guardrail evaluation and approvals', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    const policy = (name: string, decision: string, match: object, approval?: object) => ({
      id: newId(),
      projectId: stack.projectId,
      name,
      decision,
      match,
      ...(approval ? { approval } : {}),
    });
    await stack.prisma.policy.createMany({
      data: [
        policy('block transfers to unknown IBANs', 'block', {
          all: [
            { field: 'tool.name', op: 'eq', value: 'send_money' },
            { not: { field: 'arguments.recipient', op: 'in', value: ['GB29NWBK60161331926819'] } },
          ],
        }),
        policy(
          'approve password changes',
          'require_approval',
          { field: 'tool.name', op: 'eq', value: 'update_password' },
          {
            timeoutSeconds: 2,
            onTimeout: 'deny',
          },
        ),
        policy('warn on web posts', 'warn', { field: 'tool.name', op: 'glob', value: 'post_*' }),
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const client = (mode: 'monitor' | 'enforce') =>
    new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: `guard-${mode}` },
      mode,
      flushIntervalMs: 200,
    });

  test('policies stored in PostgreSQL decide; monitor mode runs everything and reports what enforce would do', async () => {
    const c = client('monitor');
    await c.ready();
    const d = await waitFor(async () => {
      const r = await c.guard({
        tool: { name: 'send_money' },
        arguments: { recipient: 'US133000000121212121212', amount: 10 },
      });
      return r.policyDecision === 'block' ? r : undefined;
    });
    expect(d).toMatchObject({
      policyDecision: 'block',
      effectiveDecision: 'warn',
      wouldBlock: true,
      mode: 'monitor',
    });
    expect(d.matchedGuardrails).toEqual([
      expect.objectContaining({ name: 'block transfers to unknown IBANs', version: 1, decision: 'block' }),
    ]);
    let ran = false;
    await c.withTool(
      { name: 'send_money', arguments: { recipient: 'US133000000121212121212', amount: 10 } },
      () => (ran = true),
    );
    expect(ran).toBe(true);
    const known = await c.guard({
      tool: { name: 'send_money' },
      arguments: { recipient: 'GB29NWBK60161331926819' },
    });
    expect(known.policyDecision).toBe('allow');
    await c.shutdown();
  });

  test('enforce mode: block throws without running the callback', async () => {
    const c = client('enforce');
    let ran = false;
    await expect(
      c.withTool(
        { name: 'send_money', arguments: { recipient: 'US133000000121212121212', amount: 10 } },
        () => (ran = true),
      ),
    ).rejects.toBeInstanceOf(GuardrailBlockedError);
    expect(ran).toBe(false);
    await c.shutdown();
  });

  test('enforce mode: require_approval waits on the long poll; a decision wakes it; the deadline denies', async () => {
    const c = client('enforce');
    await c.ready();
    let ran = false;
    const waiting = c.withTool({ name: 'update_password', arguments: { password: 'x' } }, () => (ran = true));
    const pending = (await waitFor(async () =>
      stack.prisma.approval.findFirst({ where: { projectId: stack.projectId, status: 'pending' } }),
    ))!;
    // A long poll answers "pending" after waitSeconds when nobody decides.
    const t0 = Date.now();
    const still = await call(stack.gatewayUrl, 'GET', `/v1/approvals/${pending.id}?waitSeconds=1`, {
      apiKey: stack.apiKey,
    });
    expect(still.body.status).toBe('pending');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    const decided = await call(stack.apiUrl, 'POST', `/v1/approvals/${pending.id}/decision`, {
      apiKey: stack.apiKey,
      body: { status: 'approved', comment: 'ok for the test', decidedBy: 'test@example.com' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      status: 'approved',
      decidedBy: 'test@example.com',
      comment: 'ok for the test',
    });
    await waiting;
    expect(ran).toBe(true);
    // An approval is decided once.
    const twice = await call(stack.apiUrl, 'POST', `/v1/approvals/${pending.id}/decision`, {
      apiKey: stack.apiKey,
      body: { status: 'denied' },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('conflict');

    // Nobody decides: after the policy's 2 s deadline the outcome is deny (fail closed): `expired`.
    let ran2 = false;
    await expect(
      c.withTool({ name: 'update_password', arguments: {} }, () => (ran2 = true)),
    ).rejects.toBeInstanceOf(ApprovalTimeoutError);
    expect(ran2).toBe(false);
    const expired = await stack.prisma.approval.findMany({
      where: { projectId: stack.projectId, status: 'expired' },
    });
    expect(expired).toHaveLength(1);
    await c.shutdown();
  }, 60_000);

  test('every evaluation is stored with its decision', async () => {
    const stats = await waitFor(async () => {
      const r = await call(stack.apiUrl, 'GET', '/v1/stats/events', { apiKey: stack.apiKey });
      return r.body.decisions.require_approval >= 2 ? r.body : undefined;
    });
    expect(stats.decisions.block).toBeGreaterThanOrEqual(3);
    const rows = await stack.prisma.guardrailEvaluation.findMany({
      where: { policyDecision: 'require_approval', mode: 'enforce' },
    });
    expect(rows.every((r) => r.approvalId !== null)).toBe(true);
  });
});
