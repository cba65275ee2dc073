import { MAX_PROVENANCE_ARGUMENTS, newId, type ProvenanceInput } from '@agent-warden/contracts';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * Data-flow guardrails on the server (docs/guardrails.md "Data-flow conditions"): a policy over
 * provenance decides and explains the real gateway's answer, the projector stores the provenance
 * with the evaluation (read back from PostgreSQL and through the read API), a backtest
 * re-evaluates the policy with each stored call's stored provenance, and provenance over the
 * schema's bounds is a 400 naming the path.
 */
describe('data-flow guardrails: evaluate, store, backtest', () => {
  let stack: TestStack;
  let agentId: string;
  let agentVersionId: string;
  let policyId: string;
  const problemType = 'application/problem+json';

  /** A recipient found only in the output of `read_file` call `callId` (which carried instructions). */
  const tainted = (callId: string): ProvenanceInput => ({
    arguments: [
      {
        path: 'recipient',
        origin: 'tool',
        tainted: true,
        instructed: true,
        sources: [{ toolName: 'read_file', toolCallId: callId, instructions: true }],
      },
      { path: 'amount', origin: 'user' },
    ],
    session: { untrustedInstructions: 1, lastInstruction: { toolName: 'read_file', toolCallId: callId } },
  });
  /** The same recipient, typed by the user. */
  const typed: ProvenanceInput = {
    arguments: [
      { path: 'recipient', origin: 'user' },
      { path: 'amount', origin: 'user' },
    ],
  };
  const IBAN = 'GB29NWBK60161331926819';

  const evaluate = (body: Record<string, unknown>) =>
    call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
      apiKey: stack.apiKey,
      body: { agentId, tool: { name: 'send_money' }, arguments: { recipient: IBAN, amount: 100 }, ...body },
    });
  const api = (method: string, path: string, body?: unknown) =>
    call(stack.apiUrl, method, path, { apiKey: stack.apiKey, body });
  /** The stored row of an evaluation, once the projector wrote it. */
  const storedRow = (id: string) =>
    waitFor(
      () => stack.prisma.guardrailEvaluation.findFirst({ where: { id } }).then((r) => r ?? undefined),
      60_000,
    );

  beforeAll(async () => {
    stack = await startTestStack();
    const r = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'data-flow-agent', name: 'data-flow agent' }, version: { version: '1' } },
    });
    expect(r.status).toBe(200);
    agentId = r.body.agentId;
    agentVersionId = r.body.agentVersionId;
    const p = await api('POST', '/v1/policies', {
      name: 'Payments to a recipient taken from tool output',
      decision: 'block',
      match: {
        all: [
          { field: 'tool.name', op: 'eq', value: 'send_money' },
          { field: 'provenance.arguments.recipient', op: 'in', value: ['tool'] },
        ],
      },
    });
    expect(p.status).toBe(201);
    expect(p.body.rule).toBe('tool.name = "send_money" and provenance.arguments.recipient in ["tool"]');
    policyId = p.body.id;
    // The gateways pick the policy up within their refresh interval.
    await waitFor(async () => {
      const d = await evaluate({ mode: 'enforce', dryRun: true, provenance: tainted(newId()) });
      return d.body.policyDecision === 'block';
    }, 30_000);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('a recipient from tool output is blocked with a reason naming the tool and call; typed by the user it passes; both stored with their provenance', async () => {
    const readCall = newId();
    const sessionId = newId();
    const blocked = await evaluate({ mode: 'enforce', sessionId, provenance: tainted(readCall) });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({
      policyDecision: 'block',
      effectiveDecision: 'block',
      wouldBlock: true,
    });
    const reason = blocked.body.matchedGuardrails[0].reason as string;
    expect(blocked.body.matchedGuardrails[0].policyId).toBe(policyId);
    expect(reason).toBe(
      'tool.name = "send_money" and provenance.arguments.recipient in ["tool"]; ' +
        `arguments.recipient came from the output of read_file (call ${readCall}), which carried instructions aimed at the model, not from the user's request`,
    );
    expect(reason).not.toContain(IBAN);

    const allowed = await evaluate({ mode: 'enforce', sessionId, provenance: typed });
    expect(allowed.body).toMatchObject({ policyDecision: 'allow', matchedGuardrails: [] });
    const bare = await evaluate({ mode: 'enforce', sessionId });
    expect(bare.body).toMatchObject({ policyDecision: 'allow', matchedGuardrails: [] });

    // Read back from PostgreSQL: the provenance as validated (schema defaults applied), or NULL.
    const row = await storedRow(blocked.body.evaluationId);
    expect(row.provenance).toEqual({
      arguments: [
        {
          path: 'recipient',
          origin: 'tool',
          tainted: true,
          instructed: true,
          sources: [{ toolName: 'read_file', toolCallId: readCall, instructions: true }],
        },
        { path: 'amount', origin: 'user', tainted: false, instructed: false, sources: [] },
      ],
      session: {
        untrustedInstructions: 1,
        lastInstruction: { toolName: 'read_file', toolCallId: readCall, rules: [] },
      },
      truncated: false,
    });
    expect(row.input).toEqual({ tool: { name: 'send_money' }, arguments: { recipient: IBAN, amount: 100 } });
    expect((await storedRow(allowed.body.evaluationId)).provenance).toMatchObject({
      arguments: [{ path: 'recipient', origin: 'user', tainted: false }, { path: 'amount' }],
    });
    expect((await storedRow(bare.body.evaluationId)).provenance).toBeNull();

    // The read API returns it.
    const one = await api('GET', `/v1/evaluations/${blocked.body.evaluationId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: blocked.body.evaluationId, policyDecision: 'block', sessionId });
    expect(one.body.provenance).toEqual(row.provenance);
    const list = await api('GET', `/v1/sessions/${sessionId}/evaluations`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([
      blocked.body.evaluationId,
      allowed.body.evaluationId,
      bare.body.evaluationId,
    ]);
    expect(list.body.items[2].provenance).toBeNull();
    expect((await api('GET', `/v1/evaluations/${newId()}`)).status).toBe(404);
  }, 120_000);

  test('a call held for approval shows the person deciding where its arguments came from', async () => {
    const p = await api('POST', '/v1/policies', {
      name: 'Sharing after instructions in tool output',
      decision: 'require_approval',
      match: {
        all: [
          { field: 'tool.name', op: 'eq', value: 'share_file' },
          { field: 'session.untrustedInstructions', op: 'gte', value: 1 },
        ],
      },
    });
    expect(p.status).toBe(201);
    const readCall = newId();
    const share = (extra: Record<string, unknown>) =>
      evaluate({
        tool: { name: 'share_file' },
        arguments: { file_id: '13', email: 'x@example.org' },
        ...extra,
      });
    await waitFor(async () => {
      const d = await share({ mode: 'enforce', dryRun: true, provenance: tainted(readCall) });
      return d.body.policyDecision === 'require_approval';
    }, 30_000);
    const held = await share({ mode: 'enforce', sessionId: newId(), provenance: tainted(readCall) });
    expect(held.status).toBe(200);
    expect(held.body.matchedGuardrails[0].reason).toBe(
      'tool.name = "share_file" and session.untrustedInstructions >= 1; ' +
        `the session received instructions aimed at the model in the output of read_file (call ${readCall})`,
    );
    const approvalId = held.body.approval.id as string;
    const row = await stack.prisma.approval.findFirst({ where: { id: approvalId } });
    expect(row?.provenance).toMatchObject({
      arguments: [
        { path: 'recipient', origin: 'tool', tainted: true },
        { path: 'amount', origin: 'user' },
      ],
      session: { untrustedInstructions: 1 },
    });
    const inbox = await api('GET', '/v1/approvals?status=pending');
    const item = inbox.body.items.find((a: { id: string }) => a.id === approvalId);
    expect(item.provenance).toEqual(row?.provenance);
    // A provenance with the session part only is stored with the schema defaults.
    const bare = await share({
      mode: 'enforce',
      sessionId: newId(),
      provenance: { session: { untrustedInstructions: 1 } },
    });
    const bareRow = await stack.prisma.approval.findFirst({ where: { id: bare.body.approval.id } });
    expect(bareRow?.provenance).toEqual({
      arguments: [],
      session: { untrustedInstructions: 1 },
      truncated: false,
    });
    const disabled = await api('POST', `/v1/policies/${p.body.id}/disable`);
    expect(disabled.status).toBe(200);
  }, 120_000);

  test('a dry run of a draft reads the provenance of its input', async () => {
    const readCall = newId();
    const r = await api('POST', '/v1/policies/dry-run', {
      policy: {
        name: 'instructed sessions',
        decision: 'require_approval',
        match: { field: 'session.untrustedInstructions', op: 'gte', value: 1 },
      },
      input: { tool: { name: 'send_money' }, provenance: tainted(readCall) },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ matched: true, decision: 'require_approval' });
    expect(r.body.reason).toBe(
      `session.untrustedInstructions >= 1; the session received instructions aimed at the model in the output of read_file (call ${readCall})`,
    );
  });

  test("a backtest matches exactly the stored calls whose stored evaluation's provenance is tainted", async () => {
    const sessionId = newId();
    const otherSession = newId();
    const runId = newId();
    const t0 = Date.now() - 3_600_000; // an hour ago: a window no other test writes to
    const calls = { taintedCall: newId(), typedCall: newId(), unevaluated: newId(), elsewhere: newId() };
    let sequence = 0;
    const ev = (type: string, data: object, run = true) => ({
      id: newId(),
      type,
      time: new Date(t0 + sequence * 10).toISOString(),
      sessionId,
      ...(run ? { runId } : {}),
      agentId,
      agentVersionId,
      sequence: ++sequence,
      data,
    });
    const started = (toolCallId: string) =>
      ev('agent.tool.started', {
        toolCallId,
        toolName: 'send_money',
        arguments: { recipient: IBAN, amount: 100 },
      });
    const events = [
      ev('agent.session.started', { inputSummary: 'pay my rent' }, false),
      ev('agent.run.started', { name: 'main', inputSummary: 'pay my rent' }),
      started(calls.taintedCall),
      started(calls.typedCall),
      started(calls.unevaluated),
      started(calls.elsewhere),
    ];
    const startedIds = Object.fromEntries(
      Object.values(calls).map((id, k) => [id, (events[k + 2] as { id: string }).id]),
    );
    const sent = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events },
    });
    expect(sent.status).toBe(202);

    // The evaluations the gateway recorded for those calls (monitor mode: nothing is held).
    const readCall = newId();
    const evaluations = [];
    for (const body of [
      { sessionId, toolCallId: calls.taintedCall, provenance: tainted(readCall) },
      { sessionId, toolCallId: calls.typedCall, provenance: typed },
      { sessionId, toolCallId: calls.elsewhere, provenance: typed },
      // The same tool call id in another session, evaluated last: not the evaluation of
      // `elsewhere` in this session, though it is the latest with that id.
      { sessionId: otherSession, toolCallId: calls.elsewhere, provenance: tainted(readCall) },
    ])
      evaluations.push(await evaluate({ mode: 'monitor', ...body }));
    for (const e of evaluations) expect(e.status).toBe(200);
    await Promise.all(evaluations.map((e) => storedRow(e.body.evaluationId)));
    await waitFor(async () => {
      const n = await stack.prisma.event.count({ where: { projectId: stack.projectId, sessionId } });
      return n === events.length;
    }, 60_000);

    const window = { from: new Date(t0 - 1000).toISOString(), to: new Date(t0 + 60_000).toISOString() };
    const bt = await api('POST', '/v1/policies/backtest', { policyId, ...window });
    expect(bt.status).toBe(200);
    expect(bt.body).toMatchObject({ scanned: 4, withProvenance: 3, matched: 1 });
    expect(bt.body.byDecision).toEqual({ allow: 3, warn: 0, require_approval: 0, block: 1 });
    expect(bt.body.items).toHaveLength(1);
    const [hit] = bt.body.items;
    expect(hit.eventId).toBe(startedIds[calls.taintedCall]);
    expect(hit.provenance.arguments[0]).toMatchObject({ path: 'recipient', origin: 'tool', tainted: true });
    expect(hit.reason).toContain(`arguments.recipient came from the output of read_file (call ${readCall})`);

    // The same over every stored call of the window, read back independently.
    const rows = await stack.prisma.event.findMany({
      where: { projectId: stack.projectId, type: 'agent.tool.started', sessionId },
      select: { id: true, data: true },
    });
    const taintedIds: string[] = [];
    for (const r of rows) {
      const toolCallId = (r.data as { toolCallId: string }).toolCallId;
      const stored = await stack.prisma.guardrailEvaluation.findFirst({
        where: { projectId: stack.projectId, sessionId, toolCallId },
      });
      const prov = stored?.provenance as
        { arguments?: { path: string; origin: string }[] } | null | undefined;
      if (prov?.arguments?.some((a) => a.path === 'recipient' && a.origin === 'tool')) taintedIds.push(r.id);
    }
    expect(bt.body.items.map((i: { eventId: string }) => i.eventId)).toEqual(taintedIds);
  }, 120_000);

  test('provenance over the bounds → 400 problem+json naming the path', async () => {
    const leaf = { path: 'recipient', origin: 'tool' };
    const tooMany = await evaluate({
      provenance: { arguments: Array.from({ length: MAX_PROVENANCE_ARGUMENTS + 1 }, () => leaf) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.headers.get('content-type')).toContain(problemType);
    expect(tooMany.body).toMatchObject({ code: 'validation_failed' });
    expect(tooMany.body.errors).toEqual([expect.objectContaining({ path: 'provenance.arguments' })]);

    const sources = Array.from({ length: 4 }, () => ({ toolName: 'read_file' }));
    const tooManySources = await evaluate({ provenance: { arguments: [leaf, { ...leaf, sources }] } });
    expect(tooManySources.status).toBe(400);
    expect(tooManySources.body.errors).toEqual([
      expect.objectContaining({ path: 'provenance.arguments.1.sources' }),
    ]);

    const badOrigin = await evaluate({ provenance: { arguments: [{ path: 'recipient', origin: 'model' }] } });
    expect(badOrigin.status).toBe(400);
    expect(badOrigin.body.errors).toEqual([
      expect.objectContaining({ path: 'provenance.arguments.0.origin' }),
    ]);
  });

  test('a policy over provenance is validated with paths', async () => {
    const r = await api('POST', '/v1/policies', {
      name: 'bad origin',
      decision: 'block',
      match: { all: [{ field: 'provenance.arguments.recipient', op: 'eq', value: 'tools' }] },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: 'match.all.0.value', message: 'must be an origin: user, tool, both, none' },
    ]);
  });
});
