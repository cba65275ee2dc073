import { newId } from '@agent-warden/contracts';
import { ApiConfig, start as startApi } from '@agent-warden/api';
import { createApproval, createPrisma, identifyAgent, type PrismaClient } from '@agent-warden/db';
import { silentLogger } from '@agent-warden/observability';
import { createTestDatabase, type TestDatabase } from './support/database';
import { randomSuffix } from './support/env';
import { call, waitFor } from './support/http';

const CSRF = { 'x-warden-csrf': '1' };
const ADMIN = { email: 'root@example.com', password: 'correct horse battery staple' };

/** People sign in with a session cookie and act by role; admins manage people and API keys. */
describe('people: sign-in, roles, CSRF rule and API keys', () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let api: { url: string; stop(): Promise<void> };
  let initKey: string;
  let projectId: string;
  let adminCookie: string;

  /** Signs in; returns the `name=value` pair of the session cookie. */
  const login = async (email: string, password: string) => {
    const r = await call(api.url, 'POST', '/v1/auth/login', { body: { email, password }, headers: CSRF });
    expect(r.status).toBe(200);
    return r.headers.getSetCookie()[0]!.split(';')[0]!;
  };
  const as = (cookie: string, extra: Record<string, string> = CSRF) => ({ headers: { cookie, ...extra } });
  const pendingApproval = async () => {
    // An approval names an agent of its project (a composite foreign key since ids are owned by a project).
    const { agentId } = await identifyAgent(prisma, projectId, { agent: { key: 'auth-test-agent' } });
    const a = await createApproval(prisma, {
      id: newId(),
      projectId,
      evaluationId: newId(),
      agentId,
      sessionId: newId(),
      toolName: 'update_password',
      policyId: null,
      onTimeout: 'deny',
      expiresAt: new Date(Date.now() + 600_000),
      request: { tool: { name: 'update_password' }, arguments: { user: 'bob' } },
    });
    return a.id;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = createPrisma(db.url, { poolMax: 2 });
    initKey = `aw_test_${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
    api = await startApi(
      ApiConfig.parse({
        PORT: '0',
        DATABASE_URL: db.url,
        LOG_LEVEL: 'silent',
        WARDEN_INIT_API_KEY: initKey,
        WARDEN_JWT_SECRET: `secret-${randomSuffix()}-${randomSuffix()}-${randomSuffix()}-${randomSuffix()}`,
        // Mixed case on purpose: emails are stored lower-cased.
        WARDEN_INIT_ADMIN_EMAIL: 'Root@Example.com',
        WARDEN_INIT_ADMIN_PASSWORD: ADMIN.password,
      }),
      silentLogger(),
    );
    projectId = (await prisma.project.findFirstOrThrow()).id;
    adminCookie = await login(ADMIN.email, ADMIN.password);
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
    await prisma?.$disconnect();
    await db?.drop();
  });

  test('login sets an httpOnly, SameSite=Lax session cookie; me answers the person; logout clears it', async () => {
    const r = await call(api.url, 'POST', '/v1/auth/login', {
      body: { email: 'ROOT@example.com', password: ADMIN.password },
      headers: CSRF,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      user: { id: expect.any(String), email: ADMIN.email, name: null, role: 'admin', projectId },
      projects: [{ id: projectId, name: 'default', role: 'admin', createdAt: expect.any(String) }],
    });
    const [cookie] = r.headers.getSetCookie();
    expect(cookie).toMatch(/^warden_session=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('Max-Age=43200');
    expect(cookie).not.toContain('Secure'); // plain http
    const behindTls = await call(api.url, 'POST', '/v1/auth/login', {
      body: ADMIN,
      headers: { ...CSRF, 'x-forwarded-proto': 'https' },
    });
    expect(behindTls.headers.getSetCookie()[0]).toContain('Secure');

    const me = await call(api.url, 'GET', '/v1/auth/me', as(cookie!.split(';')[0]!, {}));
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: ADMIN.email, role: 'admin' });
    expect((await call(api.url, 'GET', '/v1/auth/me')).status).toBe(401);

    const out = await call(api.url, 'POST', '/v1/auth/logout', as(cookie!.split(';')[0]!));
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^warden_session=;.*Max-Age=0/);
  });

  test('a wrong password and an unknown email get the same 401 problem', async () => {
    const wrong = await call(api.url, 'POST', '/v1/auth/login', {
      body: { email: ADMIN.email, password: 'not the password' },
      headers: CSRF,
    });
    const unknown = await call(api.url, 'POST', '/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'not the password' },
      headers: CSRF,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-type')).toContain('application/problem+json');
    expect(wrong.headers.getSetCookie()).toEqual([]);
    expect({ ...unknown.body, instance: undefined }).toEqual({ ...wrong.body, instance: undefined });
    expect(wrong.body).toMatchObject({ code: 'unauthenticated', detail: 'wrong email or password' });
  });

  test('after 10 failed sign-ins for one email from one address, the 11th answers 429 with Retry-After; other emails are not locked out', async () => {
    const attempt = (email: string) =>
      call(api.url, 'POST', '/v1/auth/login', {
        body: { email, password: 'guess guess guess' },
        headers: CSRF,
      });
    for (let i = 0; i < 10; i++) expect((await attempt('guessed@example.com')).status).toBe(401);
    const limited = await attempt('Guessed@Example.com');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(limited.body).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another email from the same address is answered as usual.
    expect((await attempt('someone-else@example.com')).status).toBe(401);
  });

  test('cookie requests that change state need X-Warden-CSRF: 1; bearer keys do not', async () => {
    const noHeader = await call(api.url, 'POST', '/v1/users', {
      headers: { cookie: adminCookie },
      body: { email: 'csrf@example.com', password: 'long enough password', role: 'viewer' },
    });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.detail).toContain('X-Warden-CSRF');
    expect(await prisma.user.count({ where: { email: 'csrf@example.com' } })).toBe(0);
    const loginNoHeader = await call(api.url, 'POST', '/v1/auth/login', { body: ADMIN });
    expect(loginNoHeader.status).toBe(403);
    // Reads need no header.
    expect((await call(api.url, 'GET', '/v1/users', { headers: { cookie: adminCookie } })).status).toBe(200);
    const byKey = await call(api.url, 'POST', '/v1/users', {
      apiKey: initKey,
      body: { email: 'csrf@example.com', password: 'long enough password', role: 'viewer' },
    });
    expect(byKey.status).toBe(201);
  });

  test('a viewer reads but cannot approve; an approver approves with a comment as user:<email>', async () => {
    for (const [email, role] of [
      ['viewer@example.com', 'viewer'],
      ['approver@example.com', 'approver'],
    ])
      expect(
        (
          await call(api.url, 'POST', '/v1/users', {
            ...as(adminCookie),
            body: { email, password: 'a long password', role, name: role },
          })
        ).status,
      ).toBe(201);
    const users = await call(api.url, 'GET', '/v1/users', as(adminCookie, {}));
    expect(users.body.items.map((u: { email: string; role: string }) => `${u.email}:${u.role}`)).toEqual(
      expect.arrayContaining([
        'viewer@example.com:viewer',
        'approver@example.com:approver',
        `${ADMIN.email}:admin`,
      ]),
    );
    expect(JSON.stringify(users.body)).not.toContain('scrypt');

    const id = await pendingApproval();
    const viewer = await login('viewer@example.com', 'a long password');
    expect((await call(api.url, 'GET', '/v1/sessions', as(viewer, {}))).status).toBe(200);
    const inbox = await call(api.url, 'GET', '/v1/approvals?status=pending', as(viewer, {}));
    expect(inbox.body.items.map((a: { id: string }) => a.id)).toContain(id);
    const denied = await call(api.url, 'POST', `/v1/approvals/${id}/decision`, {
      ...as(viewer),
      body: { status: 'approved' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'forbidden', detail: 'role viewer cannot approve' });
    expect((await call(api.url, 'GET', '/v1/api-keys', as(viewer, {}))).status).toBe(403);

    const approver = await login('approver@example.com', 'a long password');
    const ok = await call(api.url, 'POST', `/v1/approvals/${id}/decision`, {
      ...as(approver),
      // A person cannot name someone else as the decider.
      body: { status: 'approved', comment: 'checked with Bob', decidedBy: 'someone-else' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      status: 'approved',
      decidedBy: 'user:approver@example.com',
      comment: 'checked with Bob',
    });
    const transitions = await prisma.approvalTransition.findMany({
      where: { approvalId: id },
      orderBy: { at: 'asc' },
    });
    expect(transitions.map((t) => [t.fromStatus, t.toStatus, t.actor, t.comment])).toEqual([
      [null, 'pending', 'gateway', null],
      ['pending', 'approved', 'user:approver@example.com', 'checked with Bob'],
    ]);
    const again = await call(api.url, 'POST', `/v1/approvals/${id}/decision`, {
      ...as(approver),
      body: { status: 'denied' },
    });
    expect(again.status).toBe(409);
    expect(
      (
        await call(api.url, 'POST', '/v1/api-keys', {
          ...as(approver),
          body: { name: 'x', scopes: ['read'] },
        })
      ).body.detail,
    ).toBe('role approver cannot admin');
  });

  test('an admin creates an API key (secret shown once); it works until revoked', async () => {
    const created = await call(api.url, 'POST', '/v1/api-keys', {
      ...as(adminCookie),
      body: { name: 'ci reader', scopes: ['read'] },
    });
    expect(created.status).toBe(201);
    const { secret, id, prefix } = created.body;
    expect(created.body).toMatchObject({ name: 'ci reader', scopes: ['read'], revokedAt: null });
    expect(secret).toMatch(/^aw_[\w-]{43}$/);
    expect(secret.startsWith(prefix)).toBe(true);

    const list = await call(api.url, 'GET', '/v1/api-keys', as(adminCookie, {}));
    expect(list.body.items.find((k: { id: string }) => k.id === id)).toMatchObject({
      name: 'ci reader',
      prefix,
    });
    expect(JSON.stringify(list.body)).not.toContain(secret);

    expect(list.body.items.find((k: { id: string }) => k.id === id).lastUsedAt).toBeNull();
    const usedFrom = Date.now();
    expect((await call(api.url, 'GET', '/v1/sessions', { apiKey: secret })).status).toBe(200);
    // The use is stamped without holding up the request: it shows in the list shortly after.
    const used = await waitFor(async () => {
      const l = await call(api.url, 'GET', '/v1/api-keys', as(adminCookie, {}));
      return (
        l.body.items.find((k: { id: string; lastUsedAt: string | null }) => k.id === id)?.lastUsedAt ??
        undefined
      );
    }, 5_000);
    expect(Date.parse(used)).toBeGreaterThanOrEqual(usedFrom - 1_000);
    const cannot = await call(api.url, 'POST', `/v1/approvals/${await pendingApproval()}/decision`, {
      apiKey: secret,
      body: { status: 'approved' },
    });
    expect(cannot.status).toBe(403);

    expect((await call(api.url, 'DELETE', `/v1/api-keys/${id}`, as(adminCookie))).status).toBe(204);
    // The key was used (and cached) just before: the revocation still takes effect at once here.
    const after = await call(api.url, 'GET', '/v1/sessions', { apiKey: secret });
    expect(after.status).toBe(401);
    const listed = await call(api.url, 'GET', '/v1/api-keys', as(adminCookie, {}));
    expect(listed.body.items.find((k: { id: string }) => k.id === id).revokedAt).toEqual(expect.any(String));
    const audit = await call(api.url, 'GET', '/v1/audit?entityType=api_key', as(adminCookie, {}));
    expect(audit.body.items.map((e: { action: string; actor: string }) => `${e.action} ${e.actor}`)).toEqual([
      `api_key.revoked user:${ADMIN.email}`,
      `api_key.created user:${ADMIN.email}`,
    ]);
  });

  test('an admin key decides on behalf of someone; the transition names the key', async () => {
    const id = await pendingApproval();
    const r = await call(api.url, 'POST', `/v1/approvals/${id}/decision`, {
      apiKey: initKey,
      body: { status: 'denied', decidedBy: 'slack:carol' },
    });
    expect(r.status).toBe(200);
    expect(r.body.decidedBy).toBe('slack:carol');
    const t = await prisma.approvalTransition.findFirstOrThrow({
      where: { approvalId: id, toStatus: 'denied' },
    });
    expect(t.actor).toMatch(/^api-key:[0-9a-f-]{36}$/);
  });

  test('disabling a person ends their session; the last admin cannot be demoted', async () => {
    const created = await call(api.url, 'POST', '/v1/users', {
      ...as(adminCookie),
      body: { email: 'leaver@example.com', password: 'a long password', role: 'approver' },
    });
    const cookie = await login('leaver@example.com', 'a long password');
    expect((await call(api.url, 'GET', '/v1/auth/me', as(cookie, {}))).status).toBe(200);
    const off = await call(api.url, 'PATCH', `/v1/users/${created.body.id}`, {
      ...as(adminCookie),
      body: { disabled: true },
    });
    expect(off.status).toBe(200);
    expect(off.body.disabledAt).toEqual(expect.any(String));
    expect((await call(api.url, 'GET', '/v1/auth/me', as(cookie, {}))).status).toBe(401);
    expect((await call(api.url, 'GET', '/v1/sessions', as(cookie, {}))).status).toBe(401);
    const relogin = await call(api.url, 'POST', '/v1/auth/login', {
      body: { email: 'leaver@example.com', password: 'a long password' },
      headers: CSRF,
    });
    expect(relogin.status).toBe(401);

    const me = await call(api.url, 'GET', '/v1/auth/me', as(adminCookie, {}));
    const demote = await call(api.url, 'PATCH', `/v1/users/${me.body.user.id}`, {
      ...as(adminCookie),
      body: { role: 'viewer' },
    });
    expect(demote.status).toBe(409);
    const dup = await call(api.url, 'POST', '/v1/users', {
      ...as(adminCookie),
      body: { email: 'LEAVER@example.com', password: 'a long password', role: 'viewer' },
    });
    expect(dup.status).toBe(409);
  });

  test('without credentials: 401 problem', async () => {
    const r = await call(api.url, 'GET', '/v1/approvals');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('unauthenticated');
  });
});
