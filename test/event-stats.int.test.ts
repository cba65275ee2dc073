import { Client } from 'pg';
import { bootstrapProject } from '@agent-warden/api';
import { newId } from '@agent-warden/contracts';
import { createPrisma, eventStats, type PrismaClient } from '@agent-warden/db';
import { createTestDatabase, type TestDatabase } from './support/database';
import { randomSuffix } from './support/env';

/**
 * `eventStats` (`GET /v1/stats/events`) on a real PostgreSQL: the counts of one answer are read from
 * one snapshot (docs/decisions.md "The event counts are one snapshot"). Tests and the replay compare
 * them with what a client sent; counts from different moments once made the resilience suite report
 * 260 of 265 stored events while every event was stored.
 */
describe('event stats: one snapshot', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let projectId: string;
  const agentId = newId();
  const agentVersionId = newId();
  const sessionId = newId();

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = createPrisma(db.url, { poolMax: 4 });
    ({ projectId } = await bootstrapProject(prisma, {
      initApiKey: `aw_test_${randomSuffix()}${randomSuffix()}${randomSuffix()}`,
    }));
    await prisma.agent.create({ data: { id: agentId, projectId, key: 'stats-agent' } });
    await prisma.agentVersion.create({
      data: { id: agentVersionId, projectId, agentId, version: '1', metadata: {}, capabilities: [] },
    });
  }, 60_000);
  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.drop();
  });

  const connect = async () => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    return c;
  };
  const insertEvent = (c: Client, sequence: number) =>
    c.query(
      `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
       VALUES ($1, $2, $3, $4, $5, 'agent.custom', now(), $6, '{"name":"tick"}')`,
      [newId(), projectId, sessionId, agentId, agentVersionId, sequence],
    );
  const insertEvaluation = (c: Client) =>
    c.query(
      `INSERT INTO guardrail_evaluations (id, project_id, agent_id, agent_version_id, mode, policy_decision,
         effective_decision, matched_guardrails, would_block, would_require_approval, input, evaluated_at)
       VALUES ($1, $2, $3, $4, 'monitor', 'allow', 'allow', '[]', false, false, '{}', now())`,
      [newId(), projectId, agentId, agentVersionId],
    );

  test('a write committed while the counts are read shows in every count or in none', async () => {
    const seed = await connect();
    const writer = await connect();
    const watcher = await connect();
    try {
      await insertEvent(seed, 1);
      await insertEvent(seed, 2);
      await insertEvaluation(seed);
      const before = await eventStats(prisma, projectId, [agentVersionId]);
      expect(before).toMatchObject({ events: 2, byType: { 'agent.custom': 2 }, decisions: { allow: 1 } });

      // The writer stores one event and one evaluation in one transaction, holding the evaluations
      // table locked, so a read of that table waits for its commit while reads of `events` need not.
      await writer.query('BEGIN');
      await writer.query('LOCK TABLE guardrail_evaluations IN ACCESS EXCLUSIVE MODE');
      await insertEvent(writer, 3);
      await insertEvaluation(writer);
      const reading = eventStats(prisma, projectId, [agentVersionId]);
      // Commit once the read waits for the lock and nothing else of it still runs.
      const writerPid = (await writer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      for (;;) {
        const { rows } = await watcher.query<{ waiting: number; running: number }>(
          `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting,
                  count(*) FILTER (WHERE state = 'active' AND wait_event_type IS DISTINCT FROM 'Lock')::int AS running
           FROM pg_stat_activity WHERE datname = current_database() AND pid NOT IN (pg_backend_pid(), $1)`,
          [writerPid],
        );
        if (rows[0]!.waiting > 0 && rows[0]!.running === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await writer.query('COMMIT');
      const during = await reading;

      const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
      expect(during.events).toBe(sum(during.byType));
      // Before the commit (2 events, 1 evaluation) or after it (3 and 2), never a mix.
      expect([
        [2, 1],
        [3, 2],
      ]).toContainEqual([during.events, sum(during.decisions)]);
      const after = await eventStats(prisma, projectId, [agentVersionId]);
      expect(after).toMatchObject({
        events: 3,
        sessions: 1,
        duplicates: 0,
        byType: { 'agent.custom': 3 },
        decisions: { allow: 2 },
      });
    } finally {
      await writer.query('ROLLBACK').catch(() => undefined);
      await Promise.all([seed.end(), writer.end(), watcher.end()]);
    }
  }, 60_000);
});
