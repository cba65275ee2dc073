import type { Decision } from '@agent-warden/contracts';
import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailBlockedError,
  GuardrailUnavailableError,
  type WardenClient,
  type WardenClientOptions,
} from '../src';
import { FakeWarden } from './fake-warden';
import { captureLogger, Clients, testOptions } from './helpers';

let server: FakeWarden;
const clients = new Clients();

const POLICY: Record<string, Decision> = {
  'files.read': 'allow',
  'email.send': 'warn',
  'db.drop': 'block',
  'payment.refund': 'require_approval',
};

beforeEach(async () => {
  server = await new FakeWarden().start();
  server.decide = (req) => {
    const name =
      (req.tool as { name?: string } | undefined)?.name ??
      (req.action as { name?: string } | undefined)?.name;
    return POLICY[name ?? ''] ?? 'allow';
  };
});
afterEach(async () => {
  await clients.shutdownAll();
  await server.stop();
  expect(server.contractViolations).toEqual([]);
});

function make(overrides: WardenClientOptions = {}) {
  const logger = captureLogger();
  const client = clients.make(testOptions(server, { logger, ...overrides }));
  return { client, logger };
}

async function callTool(client: WardenClient, name: string) {
  const callback = jest.fn(() => `${name} done`);
  const outcome = await client.withTool({ name, arguments: { id: 7 }, riskLevel: 'high' }, callback).then(
    (value) => ({ value, error: undefined as unknown }),
    (error: unknown) => ({ value: undefined, error }),
  );
  await client.flush();
  return { ...outcome, callback };
}

function evaluated(toolName: string) {
  return server.eventsOfType('agent.guardrail.evaluated').filter((e) => e.data.toolName === toolName);
}

describe('monitor mode', () => {
  it('always runs the callback and logs what enforce would do', async () => {
    const { client, logger } = make({ mode: 'monitor' });
    for (const name of Object.keys(POLICY)) {
      const r = await callTool(client, name);
      expect(r.error).toBeUndefined();
      expect(r.value).toBe(`${name} done`);
    }
    expect(evaluated('db.drop')[0]!.data).toMatchObject({
      mode: 'monitor',
      policyDecision: 'block',
      effectiveDecision: 'warn',
      wouldBlock: true,
      outcome: 'ran',
    });
    expect(evaluated('payment.refund')[0]!.data).toMatchObject({
      policyDecision: 'require_approval',
      outcome: 'ran',
    });
    expect(evaluated('files.read')[0]!.data).toMatchObject({ effectiveDecision: 'allow', outcome: 'ran' });
    const warns = logger.lines.filter((l) => l.level === 'warn').map((l) => [l.message, l.fields?.what]);
    expect(warns).toEqual(
      expect.arrayContaining([
        ['warden guardrail would block', 'tool db.drop'],
        ['warden guardrail would require approval', 'tool payment.refund'],
        ['warden guardrail warning', 'tool email.send'],
      ]),
    );
    expect(server.eventsOfType('agent.approval.requested')).toHaveLength(0);
    expect(server.eventsOfType('agent.tool.completed')).toHaveLength(4);
  });

  it('sends the full guard request', async () => {
    const { client } = make();
    await client.withRun({}, (run) =>
      run.withTool(
        {
          name: 'files.read',
          actionType: 'fs.read',
          arguments: { path: '/etc/hosts' },
          riskLevel: 'low',
          resource: { type: 'file', id: '/etc/hosts', environment: 'prod' },
        },
        () => 'x',
      ),
    );
    const [req] = server.requestsTo('/v1/guardrails/evaluate');
    const started = server.eventsOfType('agent.tool.started')[0]!;
    expect(req!.body).toEqual({
      agentId: server.agentId,
      agentVersionId: server.agentVersionId,
      sessionId: started.sessionId,
      runId: started.runId,
      toolCallId: started.data.toolCallId,
      mode: 'monitor',
      dryRun: false,
      tool: { name: 'files.read' },
      action: { type: 'fs.read', name: 'files.read' },
      resource: { type: 'file', id: '/etc/hosts', environment: 'prod' },
      riskLevel: 'low',
      arguments: { path: '/etc/hosts' },
      // Nothing entered the run: the model wrote the path (docs/provenance.md).
      provenance: {
        arguments: [{ path: 'path', origin: 'none', tainted: false, instructed: false, sources: [] }],
        session: { untrustedInstructions: 0 },
        truncated: false,
      },
    });
    expect(evaluated('files.read')[0]!.data.evaluationId).toEqual(expect.any(String));
    // The tool call's id is the idempotency key: a retry after a lost answer records one evaluation.
    expect(req!.headers['idempotency-key']).toBe(started.data.toolCallId);
  });
});

describe('enforce mode', () => {
  it('allow and warn run; block throws GuardrailBlockedError without running the callback', async () => {
    const { client, logger } = make({ mode: 'enforce' });
    expect((await callTool(client, 'files.read')).value).toBe('files.read done');
    expect((await callTool(client, 'email.send')).value).toBe('email.send done');
    expect(logger.lines.some((l) => l.message === 'warden guardrail warning')).toBe(true);

    const blocked = await callTool(client, 'db.drop');
    expect(blocked.callback).not.toHaveBeenCalled();
    expect(blocked.error).toBeInstanceOf(GuardrailBlockedError);
    expect(blocked.error).toMatchObject({
      code: 'guardrail_blocked',
      decision: { policyDecision: 'block', effectiveDecision: 'block' },
    });
    expect(evaluated('db.drop')[0]!.data).toMatchObject({ effectiveDecision: 'block', outcome: 'blocked' });
    expect(server.eventsOfType('agent.tool.started').map((e) => e.data.toolName)).not.toContain('db.drop');
  });

  it('require_approval waits on the long poll; approved runs the callback', async () => {
    server.approvalPlan = { status: 'approved', afterMs: 120 };
    const { client } = make({ mode: 'enforce' });
    const t0 = Date.now();
    const r = await callTool(client, 'payment.refund');
    expect(r.error).toBeUndefined();
    expect(r.value).toBe('payment.refund done');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    const polls = server.requestsTo(/^\/v1\/approvals\//);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls[0]!.query.get('waitSeconds')).toBe('20');
    const types = server.events.map((e) => e.type).filter((t) => t !== 'agent.session.started');
    expect(types).toEqual([
      'agent.guardrail.evaluated',
      'agent.approval.requested',
      'agent.approval.resolved',
      'agent.tool.started',
      'agent.tool.completed',
    ]);
    expect(evaluated('payment.refund')[0]!.data).toMatchObject({
      outcome: 'awaiting_approval',
      approvalId: 'apr_1',
    });
    const resolved = server.eventsOfType('agent.approval.resolved')[0]!;
    expect(resolved.data).toMatchObject({
      approvalId: 'apr_1',
      status: 'approved',
      decidedBy: 'alice@example.com',
    });
    expect(resolved.data.waitedMs).toBeGreaterThanOrEqual(100);
    expect(resolved.parentId).toBe(server.eventsOfType('agent.approval.requested')[0]!.id);
  });

  it('denied throws ApprovalDeniedError without running the callback', async () => {
    server.approvalPlan = { status: 'denied', afterMs: 30 };
    const { client } = make({ mode: 'enforce' });
    const r = await callTool(client, 'payment.refund');
    expect(r.callback).not.toHaveBeenCalled();
    expect(r.error).toBeInstanceOf(ApprovalDeniedError);
    expect(r.error).toMatchObject({
      code: 'approval_denied',
      approval: { status: 'denied', comment: 'not today' },
    });
    expect(server.eventsOfType('agent.approval.resolved')[0]!.data).toMatchObject({
      status: 'denied',
      comment: 'not today',
    });
  });

  it('expired throws ApprovalTimeoutError (policy onTimeout: deny)', async () => {
    server.approvalPlan = { status: 'expired', afterMs: 30 };
    const { client } = make({ mode: 'enforce' });
    const r = await callTool(client, 'payment.refund');
    expect(r.callback).not.toHaveBeenCalled();
    expect(r.error).toBeInstanceOf(ApprovalTimeoutError);
    expect(server.eventsOfType('agent.approval.resolved')[0]!.data).toMatchObject({ status: 'expired' });
  });

  it('expired with onTimeout: approve runs the callback', async () => {
    server.approvalPlan = { status: 'expired', afterMs: 30, onTimeout: 'approve' };
    const { client } = make({ mode: 'enforce' });
    expect((await callTool(client, 'payment.refund')).value).toBe('payment.refund done');
  });

  it('stops waiting at approvalTimeoutMs and throws ApprovalTimeoutError', async () => {
    server.approvalPlan = { status: 'pending', afterMs: 0 };
    const { client } = make({ mode: 'enforce', approvalTimeoutMs: 200 });
    const r = await callTool(client, 'payment.refund');
    expect(r.callback).not.toHaveBeenCalled();
    expect(r.error).toBeInstanceOf(ApprovalTimeoutError);
    expect(server.requestsTo(/^\/v1\/approvals\//)[0]!.query.get('waitSeconds')).toBe('1');
    expect(server.eventsOfType('agent.approval.resolved')[0]!.data).toMatchObject({
      status: 'expired',
      comment: expect.stringContaining('client stopped waiting'),
    });
  });

  it('withGuard guards a non-tool action without tool events', async () => {
    const { client } = make({ mode: 'enforce' });
    const ran = await client.withGuard(
      { action: { type: 'email', name: 'email.send' } },
      (r) => r.effectiveDecision,
    );
    expect(ran).toBe('warn');
    await expect(
      client.withGuard({ action: { type: 'db', name: 'db.drop' } }, () => 'never'),
    ).rejects.toBeInstanceOf(GuardrailBlockedError);
    await client.flush();
    expect(server.eventsOfType('agent.tool.started')).toHaveLength(0);
    expect(server.eventsOfType('agent.guardrail.evaluated').map((e) => e.data.outcome)).toEqual([
      'ran',
      'blocked',
    ]);
  });

  it('guard() is a dry run: full decision, no approval, no events', async () => {
    const { client } = make({ mode: 'enforce' });
    const d = await client.guard({ tool: { name: 'payment.refund' }, riskLevel: 'high' });
    expect(d).toMatchObject({
      policyDecision: 'require_approval',
      effectiveDecision: 'require_approval',
      wouldRequireApproval: true,
    });
    expect(d.approval).toBeUndefined();
    expect(server.requestsTo('/v1/guardrails/evaluate')[0]!.body).toMatchObject({
      dryRun: true,
      mode: 'enforce',
    });
    await client.flush();
    expect(server.events).toHaveLength(0);
  });

  it('retries the evaluate call on 503', async () => {
    server.fail('/v1/guardrails/evaluate', 503, 1);
    const { client } = make({ mode: 'enforce' });
    expect((await callTool(client, 'files.read')).value).toBe('files.read done');
    expect(server.requestsTo('/v1/guardrails/evaluate')).toHaveLength(2);
  });
});

describe('failMode when the service is down', () => {
  async function downClient(overrides: WardenClientOptions) {
    await server.stop();
    const port = server.port;
    const made = make({ maxRetries: 1, ...overrides });
    return { ...made, port };
  }

  it("'closed' (enforce default) throws GuardrailUnavailableError; the events are sent when the service is back", async () => {
    const { client, port } = await downClient({ mode: 'enforce' });
    const callback = jest.fn(() => 'ran');
    const err = await client.withTool({ name: 'files.read' }, callback).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardrailUnavailableError);
    expect(err).toMatchObject({ code: 'guardrail_unavailable', cause: { code: 'connection_failed' } });
    expect(callback).not.toHaveBeenCalled();
    expect((await client.flush()).queued).toBe(2);

    server = await new FakeWarden().start(port);
    const res = await client.flush();
    expect(res).toMatchObject({ sent: 2, queued: 0 });
    expect(server.eventsOfType('agent.guardrail.evaluated')[0]!.data).toMatchObject({
      outcome: 'failed_closed',
      effectiveDecision: 'block',
      toolName: 'files.read',
    });
  });

  it('fails fast during the cool-down after an outage instead of retrying each call', async () => {
    const fetchSpy = jest.fn(globalThis.fetch);
    const { client } = await downClient({ mode: 'enforce', fetch: fetchSpy });
    await expect(client.withTool({ name: 'a' }, () => 1)).rejects.toBeInstanceOf(GuardrailUnavailableError);
    const calls = fetchSpy.mock.calls.length;
    await expect(client.withTool({ name: 'b' }, () => 2)).rejects.toBeInstanceOf(GuardrailUnavailableError);
    expect(fetchSpy.mock.calls.length).toBe(calls);
  });

  it("'open' (monitor default) runs the callback and records failed_open", async () => {
    const { client, port } = await downClient({ mode: 'monitor' });
    await expect(client.withTool({ name: 'db.drop' }, () => 'ran')).resolves.toBe('ran');
    server = await new FakeWarden().start(port);
    await client.flush();
    expect(server.eventsOfType('agent.guardrail.evaluated')[0]!.data).toMatchObject({
      outcome: 'failed_open',
    });
    expect(server.eventsOfType('agent.tool.completed')).toHaveLength(1);
  });

  it("an explicit failMode: 'open' in enforce runs the callback", async () => {
    const { client } = await downClient({ mode: 'enforce', failMode: 'open' });
    await expect(client.withTool({ name: 'db.drop' }, () => 'ran')).resolves.toBe('ran');
  });
});
