import { newId } from '@agent-warden/contracts';
import { SESSION_TABLES, runRetention } from '@agent-warden/db';
import { startRetentionSweeper } from '@agent-warden/api';
import { silentLogger } from '@agent-warden/observability';
import { call, waitFor } from './support/http';
import { unguardedDestructiveSession } from './support/sessions';
import { startTestStack, type TestStack } from './support/stack';

const DAY = 86_400_000;

/**
 * Per-project retention on the real stack (docs/decisions.md "Retention by whole sessions"):
 * sessions whose events' own timestamps are 40 days old and sessions of the last hour go through
 * gateway → Kafka → projector; with a 30-day window the job deletes the old sessions whole (read
 * back by SQL) and leaves the recent ones reading exactly as before; the setting is audited and
 * admin-only, and the periodic job does the same on its own.
 */
describe('retention', () => {
  let stack: TestStack;
  let agent: { agentId: string; agentVersionId: string };
  const old: string[] = [];
  const recent: string[] = [];

  const api = (method: string, p: string, body?: unknown, apiKey = stack.apiKey) =>
    call(stack.apiUrl, method, p, { apiKey, body });
  const count = async (table: string, where: string, ...params: unknown[]) =>
    Number(
      (
        await stack.prisma.$queryRawUnsafe<{ n: bigint }[]>(
          `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
          ...params,
        )
      )[0]!.n,
    );
  const rowsOf = async (sessionIds: string[]) => {
    const out: Record<string, number> = {};
    for (const t of SESSION_TABLES)
      out[t] = await count(t, `${t === 'sessions' ? 'id' : 'session_id'} = ANY($1::uuid[])`, sessionIds);
    return out;
  };

  /** Sends one ended session whose events are stamped from `t0` (ms) on; resolves once it is stored. */
  async function sendSession(t0: number): Promise<string> {
    const sessionId = newId();
    const events = unguardedDestructiveSession({ sessionId, runId: newId(), ...agent }, t0);
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, body: { events } });
    expect(r.status).toBe(202);
    expect(r.body.rejected).toEqual([]);
    await waitFor(async () => (await count('events', 'session_id = $1::uuid', sessionId)) === events.length);
    return sessionId;
  }

  beforeAll(async () => {
    stack = await startTestStack();
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'retention-agent' } },
    });
    agent = { agentId: id.body.agentId, agentVersionId: id.body.agentVersionId };
    for (const days of [40, 35]) old.push(await sendSession(Date.now() - days * DAY));
    for (const hours of [2, 1]) recent.push(await sendSession(Date.now() - hours * 3_600_000));
    // A score on an old session and one on a recent one (the api's scores route).
    for (const sessionId of [old[0], recent[0]]) {
      const s = await api('POST', `/v1/sessions/${sessionId}/scores`, {
        name: 'resolved',
        dataType: 'boolean',
        value: true,
        source: 'human',
      });
      expect(s.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('the window is off by default, admin-only to set, validated and audited', async () => {
    expect((await api('GET', '/v1/projects/current/retention')).body).toEqual({
      retentionDays: null,
      lastRun: null,
    });
    expect((await api('POST', '/v1/projects/current/retention/run')).status).toBe(409);
    const reader = await api('POST', '/v1/projects/current/api-keys', { name: 'reader', scopes: ['read'] });
    expect(
      (await api('PUT', '/v1/projects/current/retention', { retentionDays: 30 }, reader.body.secret)).status,
    ).toBe(403);
    expect((await api('GET', '/v1/projects/current/retention', undefined, reader.body.secret)).status).toBe(
      200,
    );
    const bad = await api('PUT', '/v1/projects/current/retention', { retentionDays: 0 });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(bad.body.errors)).toContain('retentionDays');

    const set = await api('PUT', '/v1/projects/current/retention', { retentionDays: 30 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ retentionDays: 30, lastRun: null });
    const audit = await stack.prisma.$queryRaw<{ before: unknown; after: unknown }[]>`
      SELECT before, after FROM audit_log WHERE project_id = ${stack.projectId}::uuid
         AND action = 'project.settings.updated'`;
    expect(audit).toEqual([{ before: { retentionDays: null }, after: { retentionDays: 30 } }]);
  });

  test('a run deletes the sessions older than the window, whole, and what remains reads the same', async () => {
    const before = await Promise.all(
      recent.map((id) => api('GET', `/v1/sessions/${id}`).then((r) => r.body)),
    );
    const recentRows = await rowsOf(recent);
    const oldRows = await rowsOf(old);
    expect(oldRows).toMatchObject({ sessions: 2, runs: 2, events: 16, scores: 1 });

    const run = await api('POST', '/v1/projects/current/retention/run');
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      status: 'succeeded',
      trigger: 'manual',
      retentionDays: 30,
      sessions: 2,
    });
    expect(run.body.deleted).toMatchObject({ sessions: 2, runs: 2, events: 16, scores: 1 });
    expect(Date.parse(run.body.cutoff)).toBeLessThan(Date.now() - 29 * DAY);

    expect(Object.values(await rowsOf(old)).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(recent)).toEqual(recentRows);
    const after = await Promise.all(recent.map((id) => api('GET', `/v1/sessions/${id}`).then((r) => r.body)));
    expect(after).toEqual(before);
    const list = await api('GET', '/v1/sessions');
    expect(list.body.items.map((s: { id: string }) => s.id).sort()).toEqual([...recent].sort());

    expect((await api('GET', '/v1/projects/current/retention')).body).toEqual({
      retentionDays: 30,
      lastRun: run.body,
    });
    const audit = await stack.prisma.$queryRaw<{ actor: string; after: { sessions: number } }[]>`
      SELECT actor, after FROM audit_log WHERE project_id = ${stack.projectId}::uuid
         AND action = 'telemetry.retention.deleted'`;
    expect(audit).toEqual([{ actor: 'system:retention', after: expect.objectContaining({ sessions: 2 }) }]);

    // Nothing older is left: a second run deletes nothing.
    const again = await api('POST', '/v1/projects/current/retention/run');
    expect(again.body).toMatchObject({ status: 'succeeded', sessions: 0, batches: 0 });
  });

  test('the periodic job deletes on its own', async () => {
    const more = [await sendSession(Date.now() - 50 * DAY), await sendSession(Date.now() - 45 * DAY)];
    const sweeper = startRetentionSweeper({
      db: stack.prisma,
      logger: silentLogger(),
      intervalMs: 200,
      firstDelayMs: 0,
    });
    try {
      await waitFor(async () => (await count('sessions', 'id = ANY($1::uuid[])', more)) === 0);
      await waitFor(async () => {
        const r = await api('GET', '/v1/projects/current/retention');
        return r.body.lastRun?.trigger === 'schedule' && r.body.lastRun.status === 'succeeded';
      });
    } finally {
      await sweeper.stop();
    }
    expect(Object.values(await rowsOf(more)).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(recent)).toMatchObject({ sessions: 2, events: 16 });
    const audit = await stack.prisma.$queryRaw<{ sessions: number }[]>`
      SELECT (after->>'sessions')::int AS sessions FROM audit_log WHERE project_id = ${stack.projectId}::uuid
         AND action = 'telemetry.retention.deleted' ORDER BY at`;
    expect(audit).toEqual([{ sessions: 2 }, { sessions: 2 }]);
  });

  test('a run deletes in bounded batches, one transaction per batch', async () => {
    const more = [];
    for (const days of [60, 59, 58]) more.push(await sendSession(Date.now() - days * DAY));
    const out = await runRetention(stack.prisma, stack.projectId, { trigger: 'manual', batchSize: 1 });
    expect(out).toEqual({ run: expect.objectContaining({ status: 'succeeded', sessions: 3, batches: 3 }) });
    expect(Object.values(await rowsOf(more)).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(recent)).toMatchObject({ sessions: 2, events: 16 });
  });
});
