import { AgentEvent, newId, type EvaluationRecord } from '@agent-warden/contracts';
import {
  createPrisma,
  createProject,
  identifyAgent,
  pgPoolOf,
  writeBatch,
  type PrismaClient,
  type ProjectedEvent,
} from '@agent-warden/db';
import { createTestDatabase, type TestDatabase } from './support/database';

/**
 * The projector's batch write on its `pg` connection (docs/architecture.md#exactly-once,
 * docs/decisions.md "The projector's batch write runs on the pg pool Prisma shares"), against a
 * real PostgreSQL: a batch stores its events and every projection (session, run, score, LLM call,
 * evaluation) at once; a re-delivery, whole or partial, stores nothing twice; a batch with a
 * foreign-key violation throws and leaves nothing of itself; the write borrows Prisma's own pool,
 * also when that pool holds a single connection; `$disconnect()` ends it. Every check reads rows back.
 */
describe('writeBatch on the pg pool Prisma shares', () => {
  let tdb: TestDatabase;
  let db: PrismaClient;
  let projectId: string;
  let agent: { agentId: string; agentVersionId: string };
  let other: { projectId: string; agentId: string; agentVersionId: string };

  beforeAll(async () => {
    tdb = await createTestDatabase();
    db = createPrisma(tdb.url, { poolMax: 2 });
    projectId = (await createProject(db, 'projection-write')).id;
    agent = await identifyAgent(db, projectId, { agent: { key: 'writer' } });
    const p2 = (await createProject(db, 'someone else')).id;
    const o = await identifyAgent(db, p2, { agent: { key: 'writer' } });
    other = { projectId: p2, agentId: o.agentId, agentVersionId: o.agentVersionId };
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await tdb?.drop();
  });

  /** One ended session of six events (run, LLM call, score), `sequence` 1…6, 10 ms apart from `t0`. */
  function session(ids = agent, t0 = Date.parse('2026-11-20T10:00:00.000Z')) {
    const sessionId = newId();
    const runId = newId();
    let sequence = 0;
    const ev = (type: string, data: object, run = true): AgentEvent =>
      AgentEvent.parse({
        id: newId(),
        type,
        time: new Date(t0 + sequence * 10).toISOString(),
        sessionId,
        ...(run ? { runId } : {}),
        agentId: ids.agentId,
        agentVersionId: ids.agentVersionId,
        sequence: ++sequence,
        data,
      }) as AgentEvent;
    const events = [
      ev('agent.session.started', { inputSummary: 'book a flight' }, false),
      ev('agent.run.started', { name: 'main', inputSummary: 'book a flight' }),
      ev('agent.llm.called', {
        provider: 'openai',
        model: 'gpt-4o-mini',
        inputTokens: 1000,
        outputTokens: 10,
      }),
      ev('agent.score.recorded', { name: 'reward', value: 1, dataType: 'numeric', source: 'rule' }),
      ev('agent.run.completed', { status: 'succeeded', outputSummary: 'booked' }),
      ev('agent.session.ended', { status: 'completed' }, false),
    ];
    return { sessionId, runId, events };
  }
  const projected = (events: AgentEvent[], project = projectId): ProjectedEvent[] =>
    events.map((event) => ({ projectId: project, event }));

  function evaluation(sessionId: string | null, over: Partial<EvaluationRecord> = {}): EvaluationRecord {
    return {
      evaluationId: newId(),
      projectId,
      agentId: agent.agentId,
      agentVersionId: agent.agentVersionId,
      sessionId,
      runId: null,
      toolCallId: newId(),
      mode: 'enforce',
      policyDecision: 'allow',
      effectiveDecision: 'allow',
      matchedGuardrails: [],
      wouldBlock: false,
      wouldRequireApproval: false,
      dryRun: false,
      approvalId: null,
      input: { tool: { name: 'search' }, arguments: { q: 'flights' } },
      evaluatedAt: '2026-11-20T10:00:00.015Z',
      ...over,
    };
  }

  /** Rows of the session in every table the batch write touches. */
  async function stored(sessionId: string) {
    const n = async (table: string) =>
      (
        await db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM ${table} WHERE session_id = $1::uuid`,
          sessionId,
        )
      )[0]!.n;
    return {
      events: await n('events'),
      runs: await n('runs'),
      scores: await n('scores'),
      llmCalls: await n('llm_calls'),
      evaluations: await n('guardrail_evaluations'),
      session: await db.session.findFirst({ where: { id: sessionId } }),
    };
  }

  it('stores a batch and all its projections, and a re-delivery stores nothing twice', async () => {
    const s = session();
    const evals = [evaluation(s.sessionId), evaluation(s.sessionId, { dryRun: true })];
    const first = await writeBatch(db, projected(s.events), evals);
    expect(first).toEqual({
      eventsInserted: 6,
      evaluationsInserted: 2,
      scoresInserted: 1,
      llmCallsInserted: 1,
      sessions: [{ projectId, sessionId: s.sessionId }],
      evaluatedSessions: [{ projectId, sessionId: s.sessionId }],
    });
    const after = await stored(s.sessionId);
    expect(after).toMatchObject({ events: 6, runs: 1, scores: 1, llmCalls: 1, evaluations: 2 });
    expect(after.session).toMatchObject({
      status: 'completed',
      inputSummary: 'book a flight',
      eventCount: 6,
      maxSequence: 6,
      startedAt: new Date('2026-11-20T10:00:00.000Z'),
      lastEventAt: new Date('2026-11-20T10:00:00.050Z'),
      endedAt: new Date('2026-11-20T10:00:00.050Z'),
    });
    const run = await db.run.findFirstOrThrow({ where: { id: s.runId } });
    expect(run).toMatchObject({ name: 'main', status: 'succeeded', outputSummary: 'booked' });
    const call = await db.llmCall.findFirstOrThrow({ where: { sessionId: s.sessionId } });
    expect(call).toMatchObject({ model: 'gpt-4o-mini', inputTokens: 1000, finishReasons: [] });
    expect(call.costUsd).toBeGreaterThan(0);

    const again = await writeBatch(db, projected(s.events), evals);
    expect(again).toEqual({
      eventsInserted: 0,
      evaluationsInserted: 0,
      scoresInserted: 0,
      llmCallsInserted: 0,
      sessions: [],
      evaluatedSessions: [],
    });
    expect(await stored(s.sessionId)).toEqual(after);
  });

  it('projects only the fresh events of a partly re-delivered batch', async () => {
    const s = session();
    await writeBatch(db, projected(s.events.slice(0, 3)), []);
    const r = await writeBatch(db, projected(s.events), []);
    expect(r).toMatchObject({ eventsInserted: 3, scoresInserted: 1, llmCallsInserted: 0 });
    const after = await stored(s.sessionId);
    expect(after).toMatchObject({ events: 6, runs: 1, scores: 1, llmCalls: 1 });
    expect(after.session).toMatchObject({ eventCount: 6, maxSequence: 6, status: 'completed' });
  });

  it('throws on a foreign-key violation and stores nothing of the batch', async () => {
    const good = session();
    // Another project's agent: the events' foreign key (project_id, agent_id) fails.
    const foreign = session(other);
    await expect(
      writeBatch(db, [...projected(good.events), ...projected(foreign.events)], [evaluation(good.sessionId)]),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await stored(good.sessionId)).toEqual({
      events: 0,
      runs: 0,
      scores: 0,
      llmCalls: 0,
      evaluations: 0,
      session: null,
    });
    // An evaluation naming another project's agent fails in the projections statement, after the events.
    const s = session();
    await expect(
      writeBatch(db, projected(s.events), [evaluation(s.sessionId, { agentId: other.agentId })]),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await stored(s.sessionId)).toMatchObject({ events: 0, evaluations: 0, session: null });
    // The connection went back to the pool usable: the same batch without the bad record is stored.
    expect(await writeBatch(db, projected(s.events), [])).toMatchObject({ eventsInserted: 6 });
  });

  it('borrows the one pool of the Prisma client, also when it holds a single connection', async () => {
    const one = createPrisma(tdb.url, { poolMax: 1 });
    try {
      const pool = pgPoolOf(one);
      const batches = [session(), session(), session()];
      // Batch writes and Prisma queries at once on one connection: they take turns, none waits forever.
      const results = await Promise.all([
        ...batches.map((s) => writeBatch(one, projected(s.events), [])),
        ...batches.map((s) => one.session.count({ where: { id: s.sessionId } })),
      ]);
      expect(results.slice(0, 3)).toMatchObject([
        { eventsInserted: 6 },
        { eventsInserted: 6 },
        { eventsInserted: 6 },
      ]);
      expect(pool.totalCount).toBe(1);
      for (const s of batches) expect((await stored(s.sessionId)).events).toBe(6);
      await one.$disconnect();
      expect(pool.ended).toBe(true);
    } finally {
      await one.$disconnect();
    }
  });
});
