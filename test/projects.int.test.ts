import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { WardenClient } from '@agent-warden/client';
import { PROJECT_TABLES } from '@agent-warden/db';
import { DEFAULT_MIGRATIONS_DIR, migrate } from '@agent-warden/migrations';
import { createTestDatabase } from './support/database';
import { call, waitFor } from './support/http';
import { createProjectViaApi } from './support/projects-api';
import { startTestStack, type TestStack } from './support/stack';

const CSRF = { 'x-warden-csrf': '1' };
const OWNER = { email: 'owner@example.com', password: 'owner password 123' };
const VERA = { email: 'vera@example.com', password: 'vera password 123' };
const NINA = { email: 'nina@example.com', password: 'nina password 123' };

/**
 * Projects through the public API on the real stack (gateway, api, projector, PostgreSQL, Kafka):
 * create, list, rename, delete with all data; members with a role per project; API keys per
 * project at the gateway; the session's current project decides what the read API returns
 * (docs/decisions.md "Projects and members"). Every assertion that something was stored or
 * removed reads the database.
 */
describe('projects, members and API keys per project', () => {
  let stack: TestStack;
  let ownerCookie: string;
  /** The second project ("staging") and its key. */
  let b: { projectId: string; apiKey: string };
  let sessionInB: string;
  const clients: WardenClient[] = [];

  const login = async (who: { email: string; password: string }) => {
    const r = await call(stack.apiUrl, 'POST', '/v1/auth/login', { body: who, headers: CSRF });
    expect(r.status).toBe(200);
    return r.headers.getSetCookie()[0]!.split(';')[0]!;
  };
  const as = (cookie: string) => ({ headers: { cookie, ...CSRF } });
  const rows = async (sql: string, ...params: unknown[]) =>
    stack.prisma.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params);
  const sessionIds = async (auth: { apiKey?: string; headers?: Record<string, string> }) => {
    const r = await call(stack.apiUrl, 'GET', '/v1/sessions?limit=100', auth);
    expect(r.status).toBe(200);
    return (r.body.items as { id: string }[]).map((s) => s.id);
  };

  beforeAll(async () => {
    stack = await startTestStack();
    // The stack's first project ("default", A) gets its admin through the stack's admin key.
    for (const [who, role] of [
      [OWNER, 'admin'],
      [NINA, 'viewer'],
    ] as const) {
      const r = await call(stack.apiUrl, 'POST', '/v1/users', {
        apiKey: stack.apiKey,
        body: { ...who, role },
      });
      expect(r.status).toBe(201);
    }
    ownerCookie = await login(OWNER);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
    await stack?.stop();
  }, 60_000);

  test('a signed-in person creates a project (becoming its admin), lists and renames it', async () => {
    const created = await createProjectViaApi(stack.apiUrl, OWNER, 'staging');
    b = created;
    ownerCookie = created.cookie; // staging is now the owner's current project
    const [project] = await rows('SELECT name FROM projects WHERE id = $1::uuid', b.projectId);
    expect(project).toEqual({ name: 'staging' });
    const members = await rows(
      `SELECT u.email, m.role FROM project_members m JOIN users u ON u.id = m.user_id WHERE m.project_id = $1::uuid`,
      b.projectId,
    );
    expect(members).toEqual([{ email: OWNER.email, role: 'admin' }]);

    const list = await call(stack.apiUrl, 'GET', '/v1/projects', as(ownerCookie));
    expect(
      list.body.items.map((p: { id: string; name: string; role: string }) => [p.id, p.name, p.role]),
    ).toEqual([
      [stack.projectId, 'default', 'admin'],
      [b.projectId, 'staging', 'admin'],
    ]);
    const me = await call(stack.apiUrl, 'GET', '/v1/auth/me', as(ownerCookie));
    expect(me.body.user).toMatchObject({ projectId: b.projectId, role: 'admin' });

    const renamed = await call(stack.apiUrl, 'PATCH', `/v1/projects/${b.projectId}`, {
      ...as(ownerCookie),
      body: { name: 'staging-eu' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: b.projectId, name: 'staging-eu', role: 'admin' });
    expect(await rows('SELECT name FROM projects WHERE id = $1::uuid', b.projectId)).toEqual([
      { name: 'staging-eu' },
    ]);
    const audit = await rows(
      'SELECT action, actor FROM audit_log WHERE project_id = $1::uuid ORDER BY at, id',
      b.projectId,
    );
    expect(audit).toEqual([
      { action: 'project.created', actor: `user:${OWNER.email}` },
      { action: 'api_key.created', actor: `user:${OWNER.email}` },
      { action: 'project.renamed', actor: `user:${OWNER.email}` },
    ]);

    const bad = await call(stack.apiUrl, 'POST', '/v1/projects', {
      ...as(ownerCookie),
      body: { name: '  ' },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'name' })]);
    expect(await rows("SELECT id FROM projects WHERE name = ''")).toEqual([]);
    // An API key belongs to one project: it cannot create projects.
    const byKey = await call(stack.apiUrl, 'POST', '/v1/projects', {
      apiKey: stack.apiKey,
      body: { name: 'x' },
    });
    expect(byKey.status).toBe(403);
  });

  test("an event sent with project B's new key lands in B; switching projects changes what the read API returns", async () => {
    const agent = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: b.apiKey,
      agent: { key: 'staging-agent' },
      flushIntervalMs: 200,
    });
    clients.push(agent);
    await agent.ready();
    sessionInB = agent.startSession({ inputSummary: 'only in staging' });
    agent.track('note', { text: 'hello' });
    agent.endSession();
    await agent.flush();
    const stored = await waitFor(async () => {
      const r = await rows(
        'SELECT project_id::text AS project FROM sessions WHERE id = $1::uuid',
        sessionInB,
      );
      return r.length === 1 ? r[0] : undefined;
    });
    expect(stored).toEqual({ project: b.projectId });
    expect(
      await rows(
        'SELECT count(*)::int AS n FROM events WHERE session_id = $1::uuid AND project_id <> $2::uuid',
        sessionInB,
        b.projectId,
      ),
    ).toEqual([{ n: 0 }]);

    // The owner's current project is B: the session is there.
    expect(await sessionIds(as(ownerCookie))).toContain(sessionInB);
    // Switch to A: it is gone from every read.
    const switched = await call(stack.apiUrl, 'POST', '/v1/auth/project', {
      ...as(ownerCookie),
      body: { projectId: stack.projectId },
    });
    expect(switched.status).toBe(200);
    expect(switched.body.user).toMatchObject({ projectId: stack.projectId, role: 'admin' });
    const cookieA = switched.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(await sessionIds(as(cookieA))).not.toContain(sessionInB);
    expect((await call(stack.apiUrl, 'GET', `/v1/sessions/${sessionInB}`, as(cookieA))).status).toBe(404);
    expect(await sessionIds({ apiKey: stack.apiKey })).not.toContain(sessionInB);
    expect(await sessionIds({ apiKey: b.apiKey })).toEqual([sessionInB]);
    // And back.
    const back = await call(stack.apiUrl, 'POST', '/v1/auth/project', {
      ...as(cookieA),
      body: { projectId: b.projectId },
    });
    ownerCookie = back.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(await sessionIds(as(ownerCookie))).toEqual([sessionInB]);
  });

  test('members: roles are per project, a viewer cannot write, a non-member sees nothing', async () => {
    const added = await call(stack.apiUrl, 'POST', `/v1/projects/${b.projectId}/members`, {
      ...as(ownerCookie),
      body: { ...VERA, role: 'viewer', name: 'Vera' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ email: VERA.email, role: 'viewer', projectId: b.projectId });
    // Nina (viewer of A) is added to B as an approver: an existing account, no password.
    const nina = await call(stack.apiUrl, 'POST', `/v1/projects/${b.projectId}/members`, {
      ...as(ownerCookie),
      body: { email: NINA.email, role: 'approver' },
    });
    expect(nina.status).toBe(201);
    const again = await call(stack.apiUrl, 'POST', `/v1/projects/${b.projectId}/members`, {
      ...as(ownerCookie),
      body: { email: NINA.email, role: 'viewer' },
    });
    expect(again.status).toBe(409);
    const roles = async (projectId: string) =>
      rows(
        `SELECT u.email, m.role FROM project_members m JOIN users u ON u.id = m.user_id
          WHERE m.project_id = $1::uuid ORDER BY u.email`,
        projectId,
      );
    expect(await roles(b.projectId)).toEqual([
      { email: NINA.email, role: 'approver' },
      { email: OWNER.email, role: 'admin' },
      { email: VERA.email, role: 'viewer' },
    ]);
    expect(await roles(stack.projectId)).toContainEqual({ email: NINA.email, role: 'viewer' });

    // Vera's only project is B: she reads it but cannot write.
    const vera = await login(VERA);
    expect(await sessionIds(as(vera))).toEqual([sessionInB]);
    const policy = await call(stack.apiUrl, 'POST', '/v1/policies', {
      ...as(vera),
      body: { name: 'no bash', decision: 'block', match: { field: 'tool.name', op: 'eq', value: 'bash' } },
    });
    expect(policy.status).toBe(403);
    const key = await call(stack.apiUrl, 'POST', `/v1/projects/${b.projectId}/api-keys`, {
      ...as(vera),
      body: { name: 'sneaky', scopes: ['admin'] },
    });
    expect(key.status).toBe(403);
    const rename = await call(stack.apiUrl, 'PATCH', `/v1/projects/${b.projectId}`, {
      ...as(vera),
      body: { name: 'mine' },
    });
    expect(rename.status).toBe(403);
    expect(await rows("SELECT id FROM api_keys WHERE name = 'sneaky'")).toEqual([]);
    expect(await rows('SELECT id FROM policies WHERE project_id = $1::uuid', b.projectId)).toEqual([]);
    expect(await rows('SELECT name FROM projects WHERE id = $1::uuid', b.projectId)).toEqual([
      { name: 'staging-eu' },
    ]);

    // Vera is no member of A: A answers 404 everywhere, and switching to it too.
    for (const [method, p] of [
      ['GET', `/v1/projects/${stack.projectId}`],
      ['GET', `/v1/projects/${stack.projectId}/members`],
      ['GET', `/v1/projects/${stack.projectId}/api-keys`],
      ['PATCH', `/v1/projects/${stack.projectId}`],
      ['DELETE', `/v1/projects/${stack.projectId}`],
    ] as const) {
      const r = await call(stack.apiUrl, method, p, {
        ...as(vera),
        body: method === 'PATCH' ? { name: 'x' } : undefined,
      });
      expect([method, p, r.status]).toEqual([method, p, 404]);
    }
    const sw = await call(stack.apiUrl, 'POST', '/v1/auth/project', {
      ...as(vera),
      body: { projectId: stack.projectId },
    });
    expect(sw.status).toBe(404);
    expect(sw.headers.getSetCookie()).toEqual([]);
    const veraProjects = await call(stack.apiUrl, 'GET', '/v1/projects', as(vera));
    expect(veraProjects.body.items.map((p: { id: string }) => p.id)).toEqual([b.projectId]);
    // An API key of A cannot reach B either.
    expect(
      (await call(stack.apiUrl, 'GET', `/v1/projects/${b.projectId}/api-keys`, { apiKey: stack.apiKey }))
        .status,
    ).toBe(404);
    expect(
      (await call(stack.apiUrl, 'DELETE', `/v1/projects/${b.projectId}`, { apiKey: stack.apiKey })).status,
    ).toBe(404);
    expect(await rows('SELECT id FROM projects WHERE id = $1::uuid', b.projectId)).toHaveLength(1);

    // Roles change per project: Nina becomes admin of B, stays viewer of A.
    const promoted = await call(
      stack.apiUrl,
      'PATCH',
      `/v1/projects/${b.projectId}/members/${nina.body.id}`,
      {
        ...as(ownerCookie),
        body: { role: 'admin' },
      },
    );
    expect(promoted.status).toBe(200);
    expect(await roles(b.projectId)).toContainEqual({ email: NINA.email, role: 'admin' });
    expect(await roles(stack.projectId)).toContainEqual({ email: NINA.email, role: 'viewer' });
    // …but an admin of B only cannot change the account of someone who also belongs to A.
    const ninaCookie = await login(NINA);
    const ninaInB = (
      await call(stack.apiUrl, 'POST', '/v1/auth/project', {
        ...as(ninaCookie),
        body: { projectId: b.projectId },
      })
    ).headers
      .getSetCookie()[0]!
      .split(';')[0]!;
    const ownerId = (await rows('SELECT id::text FROM users WHERE email = $1', OWNER.email))[0]!.id as string;
    const [hashBefore] = await rows('SELECT password_hash FROM users WHERE id = $1::uuid', ownerId);
    const takeover = await call(stack.apiUrl, 'PATCH', `/v1/projects/${b.projectId}/members/${ownerId}`, {
      ...as(ninaInB),
      body: { password: 'taken over password' },
    });
    expect(takeover.status).toBe(403);
    expect(await rows('SELECT password_hash FROM users WHERE id = $1::uuid', ownerId)).toEqual([hashBefore]);

    // Never remove or demote the last admin.
    const demoteNina = await call(
      stack.apiUrl,
      'PATCH',
      `/v1/projects/${b.projectId}/members/${nina.body.id}`,
      {
        ...as(ownerCookie),
        body: { role: 'viewer' },
      },
    );
    expect(demoteNina.status).toBe(200);
    const removeSelf = await call(
      stack.apiUrl,
      'DELETE',
      `/v1/projects/${b.projectId}/members/${ownerId}`,
      as(ownerCookie),
    );
    expect(removeSelf.status).toBe(409);
    const demoteSelf = await call(stack.apiUrl, 'PATCH', `/v1/projects/${b.projectId}/members/${ownerId}`, {
      ...as(ownerCookie),
      body: { role: 'viewer' },
    });
    expect(demoteSelf.status).toBe(409);
    expect(await roles(b.projectId)).toContainEqual({ email: OWNER.email, role: 'admin' });

    // Removing Vera ends her access to B at once; her account stays.
    const removed = await call(
      stack.apiUrl,
      'DELETE',
      `/v1/projects/${b.projectId}/members/${added.body.id}`,
      as(ownerCookie),
    );
    expect(removed.status).toBe(204);
    expect(await roles(b.projectId)).not.toContainEqual(expect.objectContaining({ email: VERA.email }));
    expect(await rows('SELECT email FROM users WHERE email = $1', VERA.email)).toHaveLength(1);
    expect((await call(stack.apiUrl, 'GET', '/v1/sessions', as(vera))).status).toBe(403);
    expect((await call(stack.apiUrl, 'GET', `/v1/projects/${b.projectId}`, as(vera))).status).toBe(404);
  });

  test('deleting a project removes its rows from every table in one go; the last project stays', async () => {
    // Give B rows in more tables: a policy (policies, policy_versions, audit_log) and an evaluation.
    const policy = await call(stack.apiUrl, 'POST', '/v1/policies', {
      apiKey: b.apiKey,
      body: { name: 'no bash', decision: 'block', match: { field: 'tool.name', op: 'eq', value: 'bash' } },
    });
    expect(policy.status).toBe(201);
    const c = clients[0]!;
    await waitFor(async () => (await c.guard({ tool: { name: 'bash' } })).policyDecision === 'block');
    await c.flush();
    await waitFor(async () => {
      const [r] = await rows(
        'SELECT count(*)::int AS n FROM guardrail_evaluations WHERE project_id = $1::uuid',
        b.projectId,
      );
      return (r!.n as number) > 0;
    });

    // Every table holding a project_id is emptied by the deletion (a new table must join PROJECT_TABLES).
    const tables = (
      await rows(
        // Partitions (of events) are emptied through their table.
        `SELECT table_name FROM information_schema.columns c
          WHERE table_schema = current_schema() AND column_name = 'project_id'
            AND NOT (SELECT relispartition FROM pg_class WHERE oid = format('%I.%I', c.table_schema, c.table_name)::regclass)
          ORDER BY table_name`,
      )
    ).map((r) => r.table_name as string);
    expect([...PROJECT_TABLES].sort()).toEqual(tables);
    const countsOf = async (projectId: string) => {
      const out: Record<string, number> = {};
      for (const t of [...tables, 'projects']) {
        const col = t === 'projects' ? 'id' : 'project_id';
        const [r] = await rows(`SELECT count(*)::int AS n FROM "${t}" WHERE "${col}" = $1::uuid`, projectId);
        out[t] = r!.n as number;
      }
      return out;
    };
    const before = await countsOf(b.projectId);
    for (const t of [
      'sessions',
      'events',
      'agents',
      'agent_versions',
      'api_keys',
      'policies',
      'policy_versions',
      'guardrail_evaluations',
      'audit_log',
      'project_members',
      'projects',
    ])
      expect([t, before[t]! > 0]).toEqual([t, true]);
    const aBefore = await countsOf(stack.projectId);

    const deleted = await call(stack.apiUrl, 'DELETE', `/v1/projects/${b.projectId}`, as(ownerCookie));
    expect(deleted.status).toBe(204);
    // It was the owner's current project: the answer moves them to A.
    const moved = deleted.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await call(stack.apiUrl, 'GET', '/v1/auth/me', as(moved))).body.user.projectId).toBe(
      stack.projectId,
    );

    const after = await countsOf(b.projectId);
    expect(after).toEqual(Object.fromEntries(Object.keys(after).map((t) => [t, t === 'audit_log' ? 1 : 0])));
    // The one row left: who deleted it, when.
    expect(
      await rows('SELECT action, actor FROM audit_log WHERE project_id = $1::uuid', b.projectId),
    ).toEqual([{ action: 'project.deleted', actor: `user:${OWNER.email}` }]);
    expect(await countsOf(stack.projectId)).toEqual(aBefore);
    // Its key stops at once on this api; members keep their accounts.
    expect((await call(stack.apiUrl, 'GET', '/v1/sessions', { apiKey: b.apiKey })).status).toBe(401);
    expect(await rows('SELECT email FROM users WHERE email = $1', NINA.email)).toHaveLength(1);

    // The installation's last project cannot be deleted.
    expect((await rows('SELECT id FROM projects')).length).toBe(1);
    const last = await call(stack.apiUrl, 'DELETE', `/v1/projects/${stack.projectId}`, as(moved));
    expect(last.status).toBe(409);
    expect(last.headers.get('content-type')).toContain('application/problem+json');
    expect(await rows('SELECT id::text FROM projects')).toEqual([{ id: stack.projectId }]);
  });
});

describe('the project_members migration', () => {
  test("moves each existing person's project and role into project_members", async () => {
    const db = await createTestDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-migrations-'));
    const pg = new Client({ connectionString: db.url });
    try {
      // A database as it was before: every migration older than project_members.
      await pg.connect();
      await pg.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      for (const name of fs.readdirSync(DEFAULT_MIGRATIONS_DIR))
        if (name < '20261124110000_project_members')
          fs.cpSync(path.join(DEFAULT_MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
      await migrate({ databaseUrl: db.url, migrationsDir: dir });
      await pg.query(`INSERT INTO projects (id, name) VALUES
        ('0193a000-0000-7000-8000-000000000001', 'prod'), ('0193a000-0000-7000-8000-000000000002', 'staging')`);
      await pg.query(`INSERT INTO users (id, project_id, email, password_hash, role) VALUES
        ('0193a000-0000-7000-8000-0000000000a1', '0193a000-0000-7000-8000-000000000001', 'ann@example.com', 'x', 'admin'),
        ('0193a000-0000-7000-8000-0000000000a2', '0193a000-0000-7000-8000-000000000002', 'bob@example.com', 'x', 'viewer')`);

      const { applied } = await migrate({ databaseUrl: db.url });
      expect(applied).toContain('20261124110000_project_members');
      const members = await pg.query(
        `SELECT u.email, m.project_id::text AS project, m.role FROM project_members m
           JOIN users u ON u.id = m.user_id ORDER BY u.email`,
      );
      expect(members.rows).toEqual([
        { email: 'ann@example.com', project: '0193a000-0000-7000-8000-000000000001', role: 'admin' },
        { email: 'bob@example.com', project: '0193a000-0000-7000-8000-000000000002', role: 'viewer' },
      ]);
      const cols = await pg.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'users' AND column_name IN ('project_id', 'role')`,
      );
      expect(cols.rows).toEqual([]);
    } finally {
      await pg.end();
      fs.rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  }, 60_000);
});
