import { newId } from '@agent-warden/contracts';
import { call, waitFor } from './support/http';
import { unguardedDestructiveSession } from './support/sessions';
import { createTestProject, type TestProject } from './support/projects';
import { startTestStack, type TestStack } from './support/stack';

/**
 * Project isolation on the real stack (gateway → Kafka → projector → PostgreSQL, api, intelligence
 * worker on BullMQ): project B, holding every id of project A, goes through each write path
 * (events, evaluate, approvals, capabilities, identify, policies, intelligence refresh,
 * recommendations, scores) and project A's rows, read back from PostgreSQL, stay exactly as they were. B's
 * outcome is either a 4xx problem naming the path, or B's own separate rows (client-chosen ids are
 * scoped by project). docs/decisions.md "Ids are owned by a project".
 */
describe('isolation: another project’s ids change nothing in the first project', () => {
  let stack: TestStack;
  let A: TestProject;
  let B: TestProject;
  /** Project A's ids, as B would learn them (they are not secret). */
  const a = {
    agentId: '',
    agentVersionId: '',
    agentKey: 'isolation-agent',
    sessionId: newId(),
    runId: newId(),
    eventIds: [] as string[],
    policyId: '',
    approvalId: '',
    recommendationId: '',
  };
  let b: { agentId: string; agentVersionId: string };

  /** Tables holding a project's rows, snapshotted whole. */
  const TABLES = [
    'agents',
    'agent_versions',
    'sessions',
    'runs',
    'events',
    'guardrail_evaluations',
    'approvals',
    'approval_transitions',
    'policies',
    'policy_versions',
    'audit_log',
    'session_intelligence',
    'recommendations',
    'scores',
    'api_keys',
    'project_members',
  ] as const;
  type Snapshot = Record<(typeof TABLES)[number], { count: number; rows: string[] }>;

  /** Every row of `projectId` in every table, from the database (as JSON text, in text order). */
  async function snapshot(projectId: string): Promise<Snapshot> {
    const out = {} as Snapshot;
    for (const table of TABLES) {
      const rows = await stack.prisma.$queryRawUnsafe<{ row: string }[]>(
        `SELECT to_jsonb(t)::text AS row FROM ${table} t WHERE project_id = $1::uuid ORDER BY 1`,
        projectId,
      );
      out[table] = { count: rows.length, rows: rows.map((r) => r.row) };
    }
    return out;
  }
  /** Counts only (for the failure message), then whole rows. */
  async function expectUnchanged(before: Snapshot): Promise<void> {
    const after = await snapshot(A.projectId);
    const counts = (s: Snapshot) => Object.fromEntries(TABLES.map((t) => [t, s[t].count]));
    expect(counts(after)).toEqual(counts(before));
    expect(after).toEqual(before);
  }
  const count = async (table: string, where: string, ...params: unknown[]) =>
    Number(
      (
        await stack.prisma.$queryRawUnsafe<{ n: bigint }[]>(
          `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
          ...params,
        )
      )[0]!.n,
    );

  const gw = (p: TestProject, method: string, path: string, body?: unknown) =>
    call(stack.gatewayUrl, method, path, { apiKey: p.apiKey, body });
  const api = (p: TestProject, method: string, path: string, body?: unknown) =>
    call(stack.apiUrl, method, path, { apiKey: p.apiKey, body });
  /** A 4xx RFC 9457 problem whose `errors` name `path` (when given). */
  function expectProblem(
    r: { status: number; headers: Headers; body: { errors?: { path: string }[] } },
    status: number,
    path?: string,
  ) {
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    if (path) expect(r.body.errors?.map((e) => e.path)).toContain(path);
  }

  async function identify(p: TestProject, key: string, name?: string) {
    const r = await gw(p, 'POST', '/v1/agents/identify', {
      agent: { key, ...(name ? { name } : {}) },
      version: { version: '1.0.0' },
    });
    expect(r.status).toBe(200);
    return r.body as { agentId: string; agentVersionId: string };
  }

  beforeAll(async () => {
    stack = await startTestStack({ intelligence: true });
    A = await createTestProject(stack, 'project-a');
    B = await createTestProject(stack, 'project-b');

    // Project A: an agent, a session with a run in which destructive tools ran unguarded (so its
    // intelligence holds recommendations), a require-approval policy and a pending approval.
    ({ agentId: a.agentId, agentVersionId: a.agentVersionId } = await identify(A, a.agentKey, 'A agent'));
    const events = unguardedDestructiveSession(a, Date.now() - 60_000, 'A: ');
    a.eventIds = events.map((e) => e.id);
    const sent = await gw(A, 'POST', '/v1/events', { events });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ accepted: events.length, rejected: [] });

    const policy = await api(A, 'POST', '/v1/policies', {
      name: 'A: approve money transfers',
      decision: 'require_approval',
      match: { field: 'tool.name', op: 'eq', value: 'send_money' },
      // Long enough that no timeout changes A's approval during the suite.
      approval: { timeoutSeconds: 3600, onTimeout: 'deny' },
    });
    expect(policy.status).toBe(201);
    a.policyId = policy.body.id;
    // The gateway refreshes policies every 500 ms here: evaluate until it knows the new one.
    a.approvalId = await waitFor(async () => {
      const r = await gw(A, 'POST', '/v1/guardrails/evaluate', {
        agentId: a.agentId,
        agentVersionId: a.agentVersionId,
        mode: 'enforce',
        tool: { name: 'send_money' },
        arguments: { amount: 10 },
      });
      expect(r.status).toBe(200);
      return r.body.policyDecision === 'require_approval' ? (r.body.approval.id as string) : undefined;
    });
    const capabilities = await gw(
      A,
      'PUT',
      `/v1/agents/${a.agentId}/versions/${a.agentVersionId}/capabilities`,
      { capabilities: [{ name: 'delete_file', riskLevel: 'high' }] },
    );
    expect(capabilities.status).toBe(200);

    // Wait until A is at rest: every event stored, its evaluations stored, intelligence written
    // over all of its events, with recommendations.
    await waitFor(
      async () =>
        (await count('events', 'project_id = $1::uuid', A.projectId)) === events.length &&
        (await count('guardrail_evaluations', 'project_id = $1::uuid', A.projectId)) >= 1 &&
        (await count(
          'session_intelligence',
          `project_id = $1::uuid AND status = 'current' AND event_count = $2`,
          A.projectId,
          events.length,
        )) === 1,
      90_000,
    );
    const recs = await api(A, 'GET', `/v1/recommendations?sessionId=${a.sessionId}&status=open`);
    expect(recs.body.items.length).toBeGreaterThan(0);
    a.recommendationId = recs.body.items[0].id;

    b = await identify(B, 'isolation-agent-b');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('events: A’s agent or agent version is refused by path; A’s session, run and event ids make B’s own rows', async () => {
    const before = await snapshot(A.projectId);
    const t = Date.now();
    const mk = (i: number, type: string, data: object, over: object = {}) => ({
      id: newId(),
      type,
      time: new Date(t + i).toISOString(),
      sessionId: a.sessionId,
      runId: a.runId,
      agentId: b.agentId,
      agentVersionId: b.agentVersionId,
      sequence: 100 + i,
      data,
      ...over,
    });
    const events = [
      mk(0, 'agent.custom', { name: 'x' }, { agentId: a.agentId, agentVersionId: a.agentVersionId }),
      mk(1, 'agent.custom', { name: 'x' }, { agentVersionId: a.agentVersionId }),
      // Reuses one of A's event ids.
      mk(2, 'agent.custom', { name: 'reused id' }, { id: a.eventIds[2] }),
      mk(3, 'agent.run.started', { name: 'B run', inputSummary: 'B overwrote' }),
      mk(4, 'agent.run.completed', { status: 'failed', outputSummary: 'B overwrote' }),
      mk(5, 'agent.session.ended', { status: 'failed' }),
    ];
    const r = await gw(B, 'POST', '/v1/events', { events });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(4);
    expect(
      r.body.rejected.flatMap((x: { errors: { path: string }[] }) => x.errors.map((e) => e.path)),
    ).toEqual(['events.0.agentId', 'events.1.agentVersionId']);
    // A batch of only foreign ids is a 403 problem naming each path.
    const refused = await gw(B, 'POST', '/v1/events', {
      events: [mk(6, 'agent.custom', { name: 'y' }, { agentVersionId: a.agentVersionId })],
    });
    expectProblem(refused, 403, 'events.0.agentVersionId');

    // B's own rows, with A's ids.
    await waitFor(
      async () =>
        (await count(
          'sessions',
          `project_id = $1::uuid AND id = $2::uuid AND event_count = 4`,
          B.projectId,
          a.sessionId,
        )) === 1,
    );
    expect(await count('events', 'project_id = $1::uuid AND id = $2::uuid', B.projectId, a.eventIds[2])).toBe(
      1,
    );
    expect(
      await count(
        'runs',
        `project_id = $1::uuid AND id = $2::uuid AND output_summary = 'B overwrote'`,
        B.projectId,
        a.runId,
      ),
    ).toBe(1);
    expect(
      await count(
        'sessions',
        `project_id = $1::uuid AND id = $2::uuid AND status = 'failed'`,
        B.projectId,
        a.sessionId,
      ),
    ).toBe(1);
    await expectUnchanged(before);
    // A's session as A reads it.
    const s = await api(A, 'GET', `/v1/sessions/${a.sessionId}`);
    expect(s.body).toMatchObject({ status: 'completed', eventCount: a.eventIds.length });
  });

  test('scores: A’s session and score ids make B’s own scores; B never reads or changes A’s', async () => {
    const scoreId = newId();
    const mine = await api(A, 'POST', `/v1/sessions/${a.sessionId}/scores`, {
      scoreId,
      name: 'A: helpful',
      value: true,
      dataType: 'boolean',
    });
    expect(mine.status).toBe(201);
    const before = await snapshot(A.projectId);
    expect(before.scores.count).toBe(1);

    // B's own session under A's session id (the events path makes it B's row), scored with A's score id.
    const t = Date.now();
    const started = {
      id: newId(),
      type: 'agent.session.started',
      time: new Date(t).toISOString(),
      sessionId: a.sessionId,
      agentId: b.agentId,
      agentVersionId: b.agentVersionId,
      sequence: 200,
      data: {},
    };
    const scored = {
      ...started,
      id: newId(),
      type: 'agent.score.recorded',
      time: new Date(t + 1).toISOString(),
      sequence: 201,
      data: { scoreId, name: 'B: reward', value: 0, dataType: 'numeric', source: 'rule' },
    };
    expect((await gw(B, 'POST', '/v1/events', { events: [started, scored] })).status).toBe(202);
    await waitFor(
      async () =>
        (await count('scores', 'project_id = $1::uuid AND id = $2::uuid', B.projectId, scoreId)) === 1,
    );
    const viaApi = await api(B, 'POST', `/v1/sessions/${a.sessionId}/scores`, {
      scoreId,
      name: 'B: again',
      value: 1,
      dataType: 'numeric',
    });
    expect(viaApi.status).toBe(200); // B's own score with that id, already stored
    expect(viaApi.body).toMatchObject({ name: 'B: reward', agentVersionId: b.agentVersionId });
    const listed = await api(B, 'GET', `/v1/sessions/${a.sessionId}/scores`);
    expect(listed.body.items.map((x: { name: string }) => x.name)).toEqual(['B: reward']);
    await expectUnchanged(before);
    const aList = await api(A, 'GET', `/v1/sessions/${a.sessionId}/scores`);
    expect(aList.body.items.map((x: { name: string }) => x.name)).toEqual(['A: helpful']);
  });

  test('evaluate: A’s agent or agent version is a 403 naming the path; A’s session and run ids make B’s own evaluation', async () => {
    const before = await snapshot(A.projectId);
    const base = { mode: 'enforce', tool: { name: 'send_money' }, arguments: { amount: 1 } };
    expectProblem(
      await gw(B, 'POST', '/v1/guardrails/evaluate', { ...base, agentId: a.agentId }),
      403,
      'agentId',
    );
    expectProblem(
      await gw(B, 'POST', '/v1/guardrails/evaluate', {
        ...base,
        agentId: b.agentId,
        agentVersionId: a.agentVersionId,
      }),
      403,
      'agentVersionId',
    );
    const mine = await gw(B, 'POST', '/v1/guardrails/evaluate', {
      ...base,
      agentId: b.agentId,
      agentVersionId: b.agentVersionId,
      sessionId: a.sessionId,
      runId: a.runId,
    });
    expect(mine.status).toBe(200);
    // B has no policy: its own default, no approval.
    expect(mine.body.policyDecision).toBe('allow');
    await waitFor(
      async () =>
        (await count(
          'guardrail_evaluations',
          'project_id = $1::uuid AND id = $2::uuid AND session_id = $3::uuid',
          B.projectId,
          mine.body.evaluationId,
          a.sessionId,
        )) === 1,
    );
    await expectUnchanged(before);
  });

  test('approvals: B can neither read nor decide A’s approval', async () => {
    const before = await snapshot(A.projectId);
    expectProblem(await gw(B, 'GET', `/v1/approvals/${a.approvalId}`), 404);
    expectProblem(
      await api(B, 'POST', `/v1/approvals/${a.approvalId}/decision`, {
        status: 'approved',
        decidedBy: 'mallory',
      }),
      404,
    );
    await expectUnchanged(before);
    expect(await count('approvals', `id = $1::uuid AND status = 'pending'`, a.approvalId)).toBe(1);
  });

  test('capabilities: A’s agent version cannot be changed by B', async () => {
    const before = await snapshot(A.projectId);
    const body = { capabilities: [{ name: 'everything', riskLevel: 'low' }] };
    expectProblem(
      await gw(B, 'PUT', `/v1/agents/${a.agentId}/versions/${a.agentVersionId}/capabilities`, body),
      404,
    );
    expectProblem(
      await gw(B, 'PUT', `/v1/agents/${b.agentId}/versions/${a.agentVersionId}/capabilities`, body),
      404,
    );
    await expectUnchanged(before);
  });

  test('identify: A’s agent key gives B its own agent; A’s agent keeps its name', async () => {
    const before = await snapshot(A.projectId);
    const mine = await identify(B, a.agentKey, 'hijacked');
    expect(mine.agentId).not.toBe(a.agentId);
    expect(mine.agentVersionId).not.toBe(a.agentVersionId);
    expect(
      await count(
        'agents',
        `project_id = $1::uuid AND key = $2 AND name = 'hijacked'`,
        B.projectId,
        a.agentKey,
      ),
    ).toBe(1);
    await expectUnchanged(before);
  });

  test('policies: B cannot read, change, enable, disable or delete A’s policy', async () => {
    const before = await snapshot(A.projectId);
    const replacement = {
      name: 'B: allow everything',
      decision: 'allow',
      match: { field: 'tool.name', op: 'eq', value: 'send_money' },
    };
    expectProblem(await api(B, 'GET', `/v1/policies/${a.policyId}`), 404);
    expectProblem(await api(B, 'PUT', `/v1/policies/${a.policyId}`, replacement), 404);
    expectProblem(await api(B, 'POST', `/v1/policies/${a.policyId}/disable`), 404);
    expectProblem(await api(B, 'POST', `/v1/policies/${a.policyId}/enable`), 404);
    expectProblem(await api(B, 'DELETE', `/v1/policies/${a.policyId}`), 404);
    expectProblem(await api(B, 'GET', `/v1/policies/${a.policyId}/versions`), 404);
    await expectUnchanged(before);
  });

  test('intelligence: B’s refresh of A’s session id analyses B’s own session; A’s recommendation cannot be decided by B', async () => {
    const before = await snapshot(A.projectId);
    const r = await api(B, 'POST', `/v1/sessions/${a.sessionId}/intelligence`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ projectId: B.projectId, sessionId: a.sessionId, reason: 'manual' });
    // B's session (from the events test) gets its own intelligence: the manual version included.
    await waitFor(
      async () =>
        (await count(
          'session_intelligence',
          `project_id = $1::uuid AND session_id = $2::uuid AND reason = 'manual'`,
          B.projectId,
          a.sessionId,
        )) === 1,
      60_000,
    );
    expectProblem(
      await api(B, 'POST', `/v1/recommendations/${a.recommendationId}/decision`, { status: 'accepted' }),
      404,
    );
    await expectUnchanged(before);
  });

  test('the database refuses rows of B that point at A’s agent, version, policy or approval', async () => {
    const before = await snapshot(A.projectId);
    const session = newId();
    // Each write below would cross projects; the composite foreign keys refuse them.
    await expect(
      stack.prisma.session.create({
        data: {
          id: session,
          projectId: B.projectId,
          agentId: a.agentId,
          agentVersionId: a.agentVersionId,
          startedAt: new Date(),
          lastEventAt: new Date(),
        },
      }),
    ).rejects.toThrow(/foreign key/i);
    await expect(
      stack.prisma.$executeRawUnsafe(
        `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::uuid, 'agent.custom', now(), 1, '{}')`,
        newId(),
        B.projectId,
        session,
        b.agentId,
        a.agentVersionId,
      ),
    ).rejects.toThrow(/foreign key/i);
    await expect(
      stack.prisma.approvalTransition.create({
        data: {
          id: newId(),
          projectId: B.projectId,
          approvalId: a.approvalId,
          toStatus: 'approved',
          actor: 'mallory',
        },
      }),
    ).rejects.toThrow(/foreign key/i);
    await expect(
      stack.prisma.policyVersion.create({
        data: {
          id: newId(),
          projectId: B.projectId,
          policyId: a.policyId,
          version: 99,
          name: 'x',
          enabled: true,
          decision: 'allow',
          match: {},
          createdBy: 'mallory',
        },
      }),
    ).rejects.toThrow(/foreign key/i);
    await expectUnchanged(before);
  });
});
