import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId, QUEUES, sessionReadyKey } from '@agent-warden/contracts';
import { SESSION_TABLES } from '@agent-warden/db';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORIES_DIR, readTrajectoryLines, type Trajectory } from '../scripts/replay/trajectories';
import { call, waitFor } from './support/http';
import { createTestProject, type TestProject } from './support/projects';
import { unguardedDestructiveSession } from './support/sessions';
import { startTestStack, type TestStack } from './support/stack';

/**
 * Deletion and export on the real stack (gateway → Kafka → projector → PostgreSQL, api, intelligence
 * worker on BullMQ; docs/decisions.md "Deleting telemetry"): real trajectories are replayed, plus
 * one session with a pending approval; the NDJSON export streams exactly the stored events; deleting
 * a session, then an agent, then the project's telemetry leaves no row of them in any table (read
 * back by SQL) while the rest stays as it was, each audited; keys without admin, or of another
 * project, delete nothing; a late event for a deleted session starts a new session.
 */
describe('deletion and NDJSON export', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-deletion-'));
  const file = path.join(dir, 'picked.jsonl');
  let stack: TestStack;
  let other: TestProject;
  /** The session sent by hand: it has a pending approval, intelligence and a queued job. */
  const s0 = { sessionId: newId(), runId: newId(), agentId: '', agentVersionId: '' };
  let s0Events: { id: string }[] = [];

  const api = (method: string, p: string, body?: unknown, apiKey = stack.apiKey) =>
    call(stack.apiUrl, method, p, { apiKey, body });
  const gw = (method: string, p: string, body?: unknown, apiKey = stack.apiKey) =>
    call(stack.gatewayUrl, method, p, { apiKey, body });
  const sql = async <T>(q: string, ...params: unknown[]) => stack.prisma.$queryRawUnsafe<T[]>(q, ...params);
  const count = async (table: string, where: string, ...params: unknown[]) =>
    Number((await sql<{ n: bigint }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...params))[0]!.n);

  /** Rows per table of `SESSION_TABLES` for one session (`sessions` by its id). */
  const rowsOfSession = async (projectId: string, sessionId: string) => {
    const out: Record<string, number> = {};
    for (const t of SESSION_TABLES)
      out[t] = await count(
        t,
        `project_id = $1::uuid AND ${t === 'sessions' ? 'id' : 'session_id'} = $2::uuid`,
        projectId,
        sessionId,
      );
    return out;
  };
  /** Every row of the project in every session table, as JSON text, except those of `exceptSessions`. */
  const snapshotExcept = async (projectId: string, exceptSessions: string[]) => {
    const out: Record<string, string[]> = {};
    for (const t of SESSION_TABLES) {
      const col = t === 'sessions' ? 'id' : 'session_id';
      const rows = await sql<{ row: string }>(
        `SELECT to_jsonb(t)::text AS row FROM ${t} t WHERE project_id = $1::uuid
           AND (${col} IS NULL OR NOT (${col} = ANY($2::uuid[]))) ORDER BY 1`,
        projectId,
        exceptSessions,
      );
      out[t] = rows.map((r) => r.row);
    }
    return out;
  };
  /** Reads an NDJSON export: the content type and the parsed lines. */
  const exportLines = async (p: string) => {
    const res = await fetch(stack.apiUrl + p, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      lines: text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { kind: string; session?: { id: string }; event?: { id: string } }),
    };
  };

  beforeAll(async () => {
    const picked: Trajectory[] = [];
    const take = async (source: string, n: number) => {
      let k = 0;
      for await (const { trajectory } of readTrajectoryLines(path.join(TRAJECTORIES_DIR, source))) {
        picked.push(trajectory);
        if (++k === n) return;
      }
    };
    await take('tau_bench_airline.jsonl', 2);
    await take('agentdojo.jsonl', 1);
    fs.writeFileSync(file, picked.map((t) => JSON.stringify(t)).join('\n') + '\n');

    stack = await startTestStack({ intelligence: true });
    other = await createTestProject(stack, 'deletion-other');
    const summary = await replayFiles({
      files: [file],
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      statsUrl: stack.apiUrl,
      concurrency: 3,
    });
    expect(summary).toMatchObject({ trajectories: 3, missing: 0, duplicates: 0 });

    // The hand-made session: an agent of its own, a require-approval policy and a pending approval in it.
    const id = await gw('POST', '/v1/agents/identify', { agent: { key: 'deletion-agent' } });
    expect(id.status).toBe(200);
    Object.assign(s0, { agentId: id.body.agentId, agentVersionId: id.body.agentVersionId });
    s0Events = unguardedDestructiveSession(s0, Date.now() - 60_000, 'S0: ');
    expect((await gw('POST', '/v1/events', { events: s0Events })).status).toBe(202);
    const policy = await api('POST', '/v1/policies', {
      name: 'approve money transfers',
      decision: 'require_approval',
      match: { field: 'tool.name', op: 'eq', value: 'send_money' },
      approval: { timeoutSeconds: 3600, onTimeout: 'deny' },
    });
    expect(policy.status).toBe(201);
    await waitFor(async () => {
      const r = await gw('POST', '/v1/guardrails/evaluate', {
        agentId: s0.agentId,
        agentVersionId: s0.agentVersionId,
        sessionId: s0.sessionId,
        runId: s0.runId,
        mode: 'enforce',
        tool: { name: 'send_money' },
        arguments: { amount: 10 },
      });
      return r.body.policyDecision === 'require_approval';
    });
    // Another project's session, which must outlive every deletion here.
    const oid = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: other.apiKey,
      body: { agent: { key: 'deletion-agent' } },
    });
    const otherEvents = unguardedDestructiveSession(
      {
        sessionId: newId(),
        runId: newId(),
        agentId: oid.body.agentId,
        agentVersionId: oid.body.agentVersionId,
      },
      Date.now(),
    );
    await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: other.apiKey,
      body: { events: otherEvents },
    });

    // At rest: every session stored with its intelligence, the approval and evaluation stored.
    await waitFor(
      async () =>
        (await count('sessions', 'project_id = $1::uuid', stack.projectId)) === 4 &&
        (await count(
          'events',
          'project_id = $1::uuid AND session_id = $2::uuid',
          stack.projectId,
          s0.sessionId,
        )) === s0Events.length &&
        (await count('events', 'project_id = $1::uuid', other.projectId)) === otherEvents.length &&
        (await count(
          'approvals',
          `project_id = $1::uuid AND session_id = $2::uuid AND status = 'pending'`,
          stack.projectId,
          s0.sessionId,
        )) === 1 &&
        (await count('guardrail_evaluations', 'session_id = $1::uuid', s0.sessionId)) >= 1 &&
        (
          await sql<{ n: bigint }>(
            `SELECT count(DISTINCT session_id) AS n FROM session_intelligence WHERE project_id = $1::uuid`,
            stack.projectId,
          )
        )[0]!.n === 4n,
      120_000,
      500,
    );
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test('every table with a session_id column is one that a deletion empties', async () => {
    const rows = await sql<{ table_name: string }>(
      // Partitions (of events) are emptied through their table.
      `SELECT DISTINCT table_name FROM information_schema.columns c
        WHERE table_schema = current_schema() AND column_name = 'session_id'
          AND NOT (SELECT relispartition FROM pg_class WHERE oid = format('%I.%I', c.table_schema, c.table_name)::regclass)
        ORDER BY 1`,
    );
    for (const r of rows) expect(SESSION_TABLES).toContain(r.table_name);
  });

  test('the NDJSON export streams every stored session with exactly its stored events, in replay order', async () => {
    const all = await exportLines('/v1/sessions/export');
    expect(all.status).toBe(200);
    expect(all.type).toMatch(/^application\/x-ndjson/);
    const sessions = await sql<{ id: string }>(
      `SELECT id::text FROM sessions WHERE project_id = $1::uuid ORDER BY started_at DESC, id DESC`,
      stack.projectId,
    );
    const expected: { kind: string; id: string }[] = [];
    for (const s of sessions) {
      expected.push({ kind: 'session', id: s.id });
      const events = await sql<{ id: string }>(
        `SELECT id::text FROM events WHERE project_id = $1::uuid AND session_id = $2::uuid ORDER BY sequence, id`,
        stack.projectId,
        s.id,
      );
      for (const e of events) expected.push({ kind: 'event', id: e.id });
    }
    expect(all.lines.map((l) => ({ kind: l.kind, id: (l.session ?? l.event)!.id }))).toEqual(expected);
    expect(all.lines.filter((l) => l.kind === 'event')).toHaveLength(
      await count('events', 'project_id = $1::uuid', stack.projectId),
    );

    // The list's filters apply: one agent's sessions only; and one session on its own.
    const mine = await exportLines(`/v1/sessions/export?agentId=${s0.agentId}`);
    expect(mine.lines.filter((l) => l.kind === 'session').map((l) => l.session!.id)).toEqual([s0.sessionId]);
    const one = await exportLines(`/v1/sessions/${s0.sessionId}/export`);
    expect(one.lines).toEqual(mine.lines);
    expect(one.lines.slice(1).map((l) => l.event!.id)).toEqual(s0Events.map((e) => e.id));

    const bad = await api('GET', '/v1/sessions/export?from=yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.errors)).toContain('from');
    expect((await api('GET', `/v1/sessions/${newId()}/export`)).status).toBe(404);
  });

  test('a read key and another project’s admin key delete nothing', async () => {
    const key = await api('POST', '/v1/projects/current/api-keys', { name: 'reader', scopes: ['read'] });
    expect(key.status).toBe(201);
    const before = await rowsOfSession(stack.projectId, s0.sessionId);
    const asReader = await api('DELETE', `/v1/sessions/${s0.sessionId}`, undefined, key.body.secret);
    expect(asReader.status).toBe(403);
    expect((await api('DELETE', `/v1/agents/${s0.agentId}`, undefined, key.body.secret)).status).toBe(403);
    expect((await api('DELETE', '/v1/projects/current/data', undefined, key.body.secret)).status).toBe(403);
    // Another project's admin: the session and agent are not in its project.
    expect((await api('DELETE', `/v1/sessions/${s0.sessionId}`, undefined, other.apiKey)).status).toBe(404);
    expect((await api('DELETE', `/v1/agents/${s0.agentId}`, undefined, other.apiKey)).status).toBe(404);
    expect(
      (await api('DELETE', `/v1/projects/${stack.projectId}/data`, undefined, other.apiKey)).status,
    ).toBe(404);
    expect(await rowsOfSession(stack.projectId, s0.sessionId)).toEqual(before);
    expect((await api('DELETE', '/v1/sessions/not-a-uuid')).status).toBe(400);
  });

  test('deleting a session removes its rows from every table, cancels its approval, drops its queued job, and is audited', async () => {
    const before = await rowsOfSession(stack.projectId, s0.sessionId);
    for (const t of SESSION_TABLES) expect({ [t]: before[t] }).toEqual({ [t]: expect.any(Number) });
    expect(before).toMatchObject({ events: s0Events.length, sessions: 1, runs: 1, approvals: 1 });
    expect(before.session_intelligence).toBeGreaterThan(0);
    expect(before.recommendations).toBeGreaterThan(0);
    const rest = await snapshotExcept(stack.projectId, [s0.sessionId]);
    // A queued intelligence job of the session (as the projector would have scheduled it).
    await stack.queue.enqueue(
      QUEUES.sessionReady,
      { projectId: stack.projectId, sessionId: s0.sessionId, reason: 'late_event' },
      { delayMs: 600_000, debounceKey: sessionReadyKey(stack.projectId, s0.sessionId) },
    );

    const res = await api('DELETE', `/v1/sessions/${s0.sessionId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      deleted: { ...before, approval_transitions: before.approval_transitions! + 1 },
      approvalsCancelled: 1,
      jobsDropped: 1,
    });
    expect(Object.values(await rowsOfSession(stack.projectId, s0.sessionId)).every((n) => n === 0)).toBe(
      true,
    );
    expect(
      await count(
        'events',
        'id = ANY($1::uuid[])',
        s0Events.map((e) => e.id),
      ),
    ).toBe(0);
    expect(await snapshotExcept(stack.projectId, [s0.sessionId])).toEqual(rest);
    expect(
      await stack.queue.dropPending(QUEUES.sessionReady, sessionReadyKey(stack.projectId, s0.sessionId)),
    ).toBe(false);

    const audit = await sql<{ actor: string; after: unknown; before: unknown }>(
      `SELECT actor, after, before FROM audit_log WHERE project_id = $1::uuid AND action = 'session.deleted'
          AND entity_type = 'session' AND entity_id = $2`,
      stack.projectId,
      s0.sessionId,
    );
    expect(audit).toEqual([
      { actor: expect.stringMatching(/^api-key:/), before: null, after: { deleted: res.body.deleted } },
    ]);
    expect((await api('GET', `/v1/sessions/${s0.sessionId}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/sessions/${s0.sessionId}`)).status).toBe(404);
  });

  test('a late event for a deleted session starts a new session holding only that event', async () => {
    const late = {
      id: newId(),
      type: 'agent.session.ended',
      time: new Date().toISOString(),
      sessionId: s0.sessionId,
      agentId: s0.agentId,
      agentVersionId: s0.agentVersionId,
      sequence: s0Events.length + 1,
      data: { status: 'completed' },
    };
    expect((await gw('POST', '/v1/events', { events: [late] })).status).toBe(202);
    const session = await waitFor(async () => {
      const r = await api('GET', `/v1/sessions/${s0.sessionId}`);
      return r.status === 200 && r.body;
    });
    expect(session.eventCount).toBe(1);
    expect(session.events.map((e: { id: string }) => e.id)).toEqual([late.id]);
    expect(
      await count(
        'events',
        'id = ANY($1::uuid[])',
        s0Events.map((e) => e.id),
      ),
    ).toBe(0);
  });

  test('deleting an agent removes it, its versions and every row naming it; other agents are untouched', async () => {
    const [dojo] = await sql<{ id: string; key: string }>(
      `SELECT id::text, key FROM agents WHERE project_id = $1::uuid AND key LIKE '%agentdojo%'`,
      stack.projectId,
    );
    expect(dojo).toBeDefined();
    const dojoSessions = (
      await sql<{ id: string }>(
        `SELECT id::text FROM sessions WHERE project_id = $1::uuid AND agent_id = $2::uuid`,
        stack.projectId,
        dojo!.id,
      )
    ).map((s) => s.id);
    expect(dojoSessions).toHaveLength(1);
    // The late session of the previous test may still be getting its intelligence: left out.
    const rest = await snapshotExcept(stack.projectId, [...dojoSessions, s0.sessionId]);

    const res = await api('DELETE', `/v1/agents/${dojo!.id}`);
    expect(res.status).toBe(200);
    expect(res.body.deleted).toMatchObject({ agents: 1, agent_versions: 1, sessions: 1 });
    expect(res.body.deleted.events).toBeGreaterThan(0);
    const agentTables = await sql<{ table_name: string }>(
      `SELECT DISTINCT table_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name = 'agent_id'`,
    );
    for (const { table_name } of agentTables)
      expect({ [table_name]: await count(table_name, 'agent_id = $1::uuid', dojo!.id) }).toEqual({
        [table_name]: 0,
      });
    expect(await count('agents', 'id = $1::uuid', dojo!.id)).toBe(0);
    for (const id of dojoSessions)
      expect(Object.values(await rowsOfSession(stack.projectId, id)).every((n) => n === 0)).toBe(true);
    expect(await snapshotExcept(stack.projectId, [...dojoSessions, s0.sessionId])).toEqual(rest);
    expect(
      await count(
        'audit_log',
        `project_id = $1::uuid AND action = 'agent.deleted' AND entity_id = $2 AND after->>'key' = $3`,
        stack.projectId,
        dojo!.id,
        dojo!.key,
      ),
    ).toBe(1);
    expect((await api('DELETE', `/v1/agents/${dojo!.id}`)).status).toBe(404);
  });

  test('the export pages through more sessions and events than one query reads, and still streams exactly what is stored', async () => {
    // 101 sessions (one more than a page of sessions), the first with 1,051 events (more than a page of events).
    const id = await gw('POST', '/v1/agents/identify', { agent: { key: 'export-paging-agent' } });
    const agentIds = { agentId: id.body.agentId as string, agentVersionId: id.body.agentVersionId as string };
    const t0 = Date.now() - 3_600_000;
    const events: object[] = [];
    for (let i = 0; i < 101; i++) {
      const sessionId = newId();
      const ev = (sequence: number, type: string, data: object) => ({
        id: newId(),
        type,
        time: new Date(t0 + i * 1000 + sequence).toISOString(),
        sessionId,
        ...agentIds,
        sequence,
        data,
      });
      events.push(ev(1, 'agent.session.started', { inputSummary: `paging ${i}` }));
      if (i === 0)
        for (let n = 2; n <= 1051; n++)
          events.push(ev(n, 'agent.message.logged', { role: 'assistant', content: `line ${n}` }));
    }
    for (let i = 0; i < events.length; i += 100) {
      const r = await gw('POST', '/v1/events', { events: events.slice(i, i + 100) });
      expect(r.status).toBe(202);
      expect(r.body.rejected).toEqual([]);
    }
    await waitFor(
      async () => (await count('events', 'agent_id = $1::uuid', agentIds.agentId)) === events.length,
      60_000,
    );

    const out = await exportLines(`/v1/sessions/export?agentId=${agentIds.agentId}`);
    const sessions = await sql<{ id: string }>(
      `SELECT id::text FROM sessions WHERE project_id = $1::uuid AND agent_id = $2::uuid ORDER BY started_at DESC, id DESC`,
      stack.projectId,
      agentIds.agentId,
    );
    expect(sessions).toHaveLength(101);
    const expected: string[] = [];
    for (const s of sessions) {
      expected.push(`session ${s.id}`);
      const rows = await sql<{ id: string }>(
        `SELECT id::text FROM events WHERE project_id = $1::uuid AND session_id = $2::uuid ORDER BY sequence, id`,
        stack.projectId,
        s.id,
      );
      for (const e of rows) expected.push(`event ${e.id}`);
    }
    expect(out.lines.map((l) => `${l.kind} ${(l.session ?? l.event)!.id}`)).toEqual(expected);
    expect(expected).toHaveLength(101 + events.length);
  });

  test("deleting the project's telemetry empties every session table of it and nothing of another project", async () => {
    const otherBefore = await snapshotExcept(other.projectId, []);
    const agentsBefore = await count('agents', 'project_id = $1::uuid', stack.projectId);
    const res = await api('DELETE', '/v1/projects/current/data');
    expect(res.status).toBe(200);
    expect(res.body.deleted.sessions).toBeGreaterThan(0);
    for (const t of SESSION_TABLES)
      expect({ [t]: await count(t, 'project_id = $1::uuid', stack.projectId) }).toEqual({ [t]: 0 });
    // Agents and the audit log stay; the deletion is audited.
    expect(await count('agents', 'project_id = $1::uuid', stack.projectId)).toBe(agentsBefore);
    expect(
      await count('audit_log', `project_id = $1::uuid AND action = 'project.data.deleted'`, stack.projectId),
    ).toBe(1);
    expect(await snapshotExcept(other.projectId, [])).toEqual(otherBefore);
    expect(otherBefore.events!.length).toBeGreaterThan(0);
    const list = await api('GET', '/v1/sessions');
    expect(list.body.items).toEqual([]);
  });
});
