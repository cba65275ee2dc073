import { GuardrailBlockedError, silentLogger, WardenClient } from '@agent-warden/client';
import { newId } from '@agent-warden/contracts';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * The agent version comparison on the real stack (docs/architecture.md#comparing-versions): two
 * versions of one agent run sessions through the TypeScript client (gateway → Kafka → projector),
 * with a boolean score per session and, on version B, a call a policy blocks and a tool that fails.
 * `GET /v1/agents/{agentId}/compare` must return the counts stored in PostgreSQL, the rates with
 * intervals holding them, the sign of the difference and example sessions showing it.
 */
describe('agent version comparison', () => {
  let stack: TestStack;
  const AGENT = 'compare-agent';
  /** Per version: whether each session succeeded. */
  const OUTCOMES = { '1.0.0': [true, true, true, false], '2.0.0': [true, false, false, false] };
  const sessions: Record<string, Array<{ id: string; ok: boolean }>> = { '1.0.0': [], '2.0.0': [] };
  /** What a session does besides a lookup: version#index → a blocked call, a failing tool, a call a person approves. */
  const EXTRAS: Record<string, 'blocked' | 'failing' | 'approval'> = {
    '1.0.0#0': 'approval',
    '2.0.0#1': 'blocked',
    '2.0.0#2': 'failing',
  };
  let blockedSession = '';
  let failingSession = '';

  const api = (path: string) => call(stack.apiUrl, 'GET', path, { apiKey: stack.apiKey });

  /** One session of `version` sent by the client: a lookup, maybe a blocked call or a failing tool, a score. */
  async function runSession(
    version: string,
    ok: boolean,
    extra?: 'blocked' | 'failing' | 'approval',
  ): Promise<string> {
    const sessionId = newId();
    const client = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: AGENT },
      version: { version },
      mode: 'enforce',
      sessionId,
      flushIntervalMs: 60_000,
      logger: silentLogger,
    });
    await client.withTool({ name: 'lookup', arguments: { q: 'seat' } }, () => 'found');
    if (extra === 'blocked')
      await expect(
        client.withTool({ name: 'delete_all', arguments: {} }, () => 'deleted'),
      ).rejects.toBeInstanceOf(GuardrailBlockedError);
    if (extra === 'failing')
      await expect(
        client.withTool({ name: 'pay', arguments: { amount: 1 } }, () => {
          throw new Error('card declined');
        }),
      ).rejects.toThrow('card declined');
    if (extra === 'approval') {
      // A person (here the admin key) approves the held call while the client waits for it.
      const approve = (async () => {
        const pending = await waitFor(async () => {
          const r = await call(stack.apiUrl, 'GET', '/v1/approvals?status=pending', { apiKey: stack.apiKey });
          return r.body.items?.find((a: { sessionId: string }) => a.sessionId === sessionId);
        }, 30_000);
        const d = await call(stack.apiUrl, 'POST', `/v1/approvals/${pending.id}/decision`, {
          apiKey: stack.apiKey,
          body: { status: 'approved' },
        });
        expect(d.status).toBe(200);
      })();
      expect(await client.withTool({ name: 'refund', arguments: { amount: 5 } }, () => 'refunded')).toBe(
        'refunded',
      );
      await approve;
    }
    client.score({ name: 'task_succeeded', value: ok });
    const flushed = await client.shutdown();
    expect(flushed.failed + flushed.rejected + flushed.dropped).toBe(0);
    return sessionId;
  }

  beforeAll(async () => {
    stack = await startTestStack();
    const p = await call(stack.apiUrl, 'POST', '/v1/policies', {
      apiKey: stack.apiKey,
      body: {
        name: 'never delete everything',
        decision: 'block',
        match: { all: [{ field: 'tool.name', op: 'eq', value: 'delete_all' }] },
      },
    });
    expect(p.status).toBe(201);
    const held = await call(stack.apiUrl, 'POST', '/v1/policies', {
      apiKey: stack.apiKey,
      body: {
        name: 'refunds need a person',
        decision: 'require_approval',
        match: { all: [{ field: 'tool.name', op: 'eq', value: 'refund' }] },
      },
    });
    expect(held.status).toBe(201);
    const probe = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'policy-probe' }, version: { version: '1' } },
    });
    expect(probe.status).toBe(200);
    // The gateways pick the policy up within their refresh interval (a dry run stores nothing).
    await waitFor(async () => {
      const d = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
        apiKey: stack.apiKey,
        body: { agentId: probe.body.agentId, tool: { name: 'delete_all' }, arguments: {}, dryRun: true },
      });
      return d.body.policyDecision === 'block';
    }, 30_000);

    for (const [version, outcomes] of Object.entries(OUTCOMES))
      for (const [i, ok] of outcomes.entries()) {
        const extra = EXTRAS[`${version}#${i}`];
        const id = await runSession(version, ok, extra);
        sessions[version]!.push({ id, ok });
        if (extra === 'blocked') blockedSession = id;
        if (extra === 'failing') failingSession = id;
      }
    // Everything projected: 8 scores, the blocked call's and the held call's evaluations.
    await waitFor(async () => {
      const [scores, blocks, held] = await Promise.all([
        stack.prisma.score.count({ where: { projectId: stack.projectId, name: 'task_succeeded' } }),
        stack.prisma.guardrailEvaluation.count({
          where: { projectId: stack.projectId, sessionId: blockedSession, policyDecision: 'block' },
        }),
        stack.prisma.guardrailEvaluation.count({
          where: {
            projectId: stack.projectId,
            sessionId: sessions['1.0.0']![0]!.id,
            policyDecision: 'require_approval',
          },
        }),
      ]);
      return scores === 8 && blocks === 1 && held === 1;
    }, 60_000);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('the comparison returns the stored counts, rates inside their intervals, the difference and its examples', async () => {
    const agent = await stack.prisma.agent.findFirstOrThrow({
      where: { projectId: stack.projectId, key: AGENT },
      include: { versions: true },
    });
    const idOf = (v: string) => agent.versions.find((x) => x.version === v)!.id;
    const [a, b] = [idOf('1.0.0'), idOf('2.0.0')];
    const r = await api(`/v1/agents/${agent.id}/compare?versions=${a},${b}`);
    expect(r.status).toBe(200);
    expect(r.body.versions.map((v: { versionId: string }) => v.versionId)).toEqual([a, b]);
    const [va, vb] = r.body.versions;

    // Sessions and tool figures as stored in PostgreSQL.
    for (const [v, id] of [
      [va, a],
      [vb, b],
    ]) {
      const stored = await stack.prisma.session.count({
        where: { projectId: stack.projectId, agentVersionId: id },
      });
      expect(v.sessions).toBe(stored);
      expect(stored).toBe(4);
      const calls = await stack.prisma.event.count({
        where: { projectId: stack.projectId, agentVersionId: id, type: 'agent.tool.started' },
      });
      const failures = await stack.prisma.event.count({
        where: { projectId: stack.projectId, agentVersionId: id, type: 'agent.tool.failed' },
      });
      expect(v.toolCallsPerSession).toBeCloseTo(calls / 4, 10);
      expect(v.toolFailuresPerSession).toBeCloseTo(failures / 4, 10);
      expect(v.cost).toBeNull();
      expect(v.tokens).toBeNull();
    }
    expect(vb.toolFailuresPerSession).toBeCloseTo(1 / 4, 10);
    expect(va.toolFailuresPerSession).toBe(0);

    // Success rates: A 3 of 4, B 1 of 4, each inside its Wilson interval, inside [0, 1].
    const success = (v: { scores: Array<{ name: string; success: unknown }> }) =>
      v.scores.find((s) => s.name === 'task_succeeded')!.success as {
        successes: number;
        n: number;
        rate: number;
        interval: { low: number; high: number };
      };
    for (const [v, x] of [
      [va, 3],
      [vb, 1],
    ] as const) {
      const s = success(v);
      expect([s.successes, s.n, s.rate]).toEqual([x, 4, x / 4]);
      expect(s.interval.low).toBeGreaterThanOrEqual(0);
      expect(s.interval.high).toBeLessThanOrEqual(1);
      expect(s.interval.low).toBeLessThan(s.rate);
      expect(s.interval.high).toBeGreaterThan(s.rate);
    }

    // Guardrails: B's blocked call is counted, A has none.
    expect(vb.decisions.block).toBe(1);
    expect(va.decisions.block).toBe(0);
    expect(vb.blockedSessions).toMatchObject({ successes: 1, n: 4 });
    expect(va.blockedSessions).toMatchObject({ successes: 0, n: 4 });
    expect(va.decisions.require_approval).toBe(1);

    // Approvals: A's one approval, decided, its wait as stored; B has none.
    const approval = await stack.prisma.approval.findFirstOrThrow({
      where: { projectId: stack.projectId, sessionId: sessions['1.0.0']![0]!.id },
    });
    expect(va.approvals).toEqual({
      count: 1,
      decided: 1,
      medianWaitMs: approval.decidedAt!.getTime() - approval.createdAt.getTime(),
    });
    expect(vb.approvals).toEqual({ count: 0, decided: 0, medianWaitMs: null });

    // Differences from the baseline A: success down by 0.5, blocked sessions up by 0.25.
    expect(r.body.differences).toHaveLength(1);
    const diff = r.body.differences[0];
    expect([diff.baselineVersionId, diff.versionId]).toEqual([a, b]);
    const rate = (m: string) => diff.rates.find((x: { metric: string }) => x.metric === m);
    const s = rate('score:task_succeeded');
    expect(s.difference).toBeCloseTo(-0.5, 10);
    expect(s.interval.low).toBeLessThan(-0.5);
    expect(s.interval.high).toBeGreaterThan(-0.5);
    expect(s.interval.low).toBeGreaterThanOrEqual(-1);
    // The examples are B's failed sessions.
    const failedB = sessions['2.0.0']!.filter((x) => !x.ok).map((x) => x.id);
    expect([...s.exampleSessionIds].sort()).toEqual([...failedB].sort());
    const blocked = rate('blockedSessions');
    expect(blocked.difference).toBeCloseTo(0.25, 10);
    expect(blocked.exampleSessionIds).toEqual([blockedSession]);
    expect(failingSession).not.toBe('');
    // No LLM call in these sessions: cost and tokens are null, and no note about unpriced calls.
    expect(r.body.notes).toEqual([]);

    // A window that ends before the sessions holds none of them.
    const empty = await api(`/v1/agents/${agent.id}/compare?versions=${a},${b}&to=2020-01-01T00:00:00Z`);
    expect(empty.status).toBe(200);
    expect(empty.body.versions.map((v: { sessions: number }) => v.sessions)).toEqual([0, 0]);
    expect(empty.body.differences[0].rates[0]).toMatchObject({ difference: null, interval: null });
  });

  test('a bad versions list is a 400 naming versions; an unknown agent is a 404', async () => {
    const agent = await stack.prisma.agent.findFirstOrThrow({
      where: { projectId: stack.projectId, key: AGENT },
      include: { versions: true },
    });
    const [a, b] = agent.versions.map((v) => v.id);
    for (const versions of [a, `${a},${a}`, `${a},not-a-uuid`, `${a},${newId()}`, '']) {
      const r = await api(`/v1/agents/${agent.id}/compare?versions=${versions}`);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      // `versions`, or the item of it (`versions.1`) that is not a uuid.
      expect(r.body.errors.map((e: { path: string }) => e.path.split('.')[0])).toContain('versions');
    }
    const missing = await api(`/v1/agents/${agent.id}/compare`);
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toContain('versions');
    const backwards = await api(
      `/v1/agents/${agent.id}/compare?versions=${a},${b}&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`,
    );
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors).toEqual([{ path: 'from', message: 'must be before `to`' }]);
    const unknown = await api(`/v1/agents/${newId()}/compare?versions=${a},${b}`);
    expect(unknown.status).toBe(404);
  });
});
