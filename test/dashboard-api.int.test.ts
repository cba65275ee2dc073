import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { createApiApp } from '@agent-warden/api';
import { createApiKey, createPrisma, createProject, type PrismaClient } from '@agent-warden/db';
import { generateApiKey, hashApiKey, listen, type RunningServer } from '@agent-warden/http';
import { createLogger } from '@agent-warden/observability';
import { createTestDatabase, type TestDatabase } from './support/database';
import { call } from './support/http';

// The dashboard's read API over a small known data set written with SQL/Prisma: each filter must
// return exactly the expected sessions, paging must neither repeat nor skip, and the figures must
// add up. Also the dashboard build served by the api (static files + SPA fallback).

const T0 = Date.parse('2026-01-10T00:00:00.000Z');
const HOUR = 3_600_000;
const at = (hours: number) => new Date(T0 + hours * HOUR);

interface SeedSession {
  name: string;
  agent: 'A' | 'B';
  version: 'A1' | 'A2' | 'B1';
  hour: number;
  status: string;
  summary: string | null;
}

/** 12 sessions of project 1 (s8 and s9 start at the same instant: the id breaks the tie). */
const SESSIONS: SeedSession[] = [
  {
    name: 's0',
    agent: 'A',
    version: 'A1',
    hour: 0,
    status: 'completed',
    summary: 'Refund order 42 for Alice',
  },
  {
    name: 's1',
    agent: 'A',
    version: 'A1',
    hour: 1,
    status: 'failed',
    summary: 'Wire transfer to unknown IBAN',
  },
  { name: 's2', agent: 'A', version: 'A2', hour: 2, status: 'completed', summary: 'Book a flight to Paris' },
  {
    name: 's3',
    agent: 'B',
    version: 'B1',
    hour: 3,
    status: 'active',
    summary: 'REFUND the duplicate charge',
  },
  {
    name: 's4',
    agent: 'B',
    version: 'B1',
    hour: 4,
    status: 'cancelled',
    summary: 'Delete the staging database',
  },
  { name: 's5', agent: 'A', version: 'A2', hour: 5, status: 'completed', summary: 'Upload is 100% done' },
  { name: 's6', agent: 'A', version: 'A2', hour: 6, status: 'active', summary: 'Upload is 1000 bytes' },
  { name: 's7', agent: 'B', version: 'B1', hour: 7, status: 'completed', summary: null },
  { name: 's8', agent: 'A', version: 'A1', hour: 8, status: 'failed', summary: 'Fix the flaky test_refund' },
  { name: 's9', agent: 'A', version: 'A1', hour: 8, status: 'completed', summary: 'Summarise_the_report' },
  { name: 's10', agent: 'B', version: 'B1', hour: 10, status: 'completed', summary: 'Summarise the report' },
  { name: 's11', agent: 'A', version: 'A2', hour: 11, status: 'completed', summary: 'Send money to Bob' },
];

describe('dashboard read API', () => {
  let tdb: TestDatabase;
  let db: PrismaClient;
  let server: RunningServer;
  let key: string;
  let otherKey: string;
  let projectId: string;
  const ids: Record<string, string> = {};
  const agents: Record<string, string> = {};
  const versions: Record<string, string> = {};
  /** Session names newest first, as the list orders them. */
  let newestFirst: string[];
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-dist-'));

  /** The api's dependencies (a variable, so that options added by other features need no change here). */
  const apiDeps = (dashboardDir: string) => {
    const deps = {
      db,
      logger: createLogger({ name: 'test', level: 'silent' }),
      dashboardDir,
      sessionSecret: 'dashboard-api-test-secret-0123456789abcdef',
    };
    return deps;
  };
  const get = (p: string, apiKey = key) => call(server.url, 'GET', p, { apiKey });
  const names = (items: Array<{ id: string }>) =>
    items.map((i) => Object.keys(ids).find((n) => ids[n] === i.id) ?? `?${i.id}`);
  async function listAll(query: string, limit = 50): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const r = await get(`/v1/sessions?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      out.push(...names(r.body.items));
      cursor = r.body.nextCursor;
      if (!cursor) return out;
    }
    throw new Error('paging did not end');
  }
  const expected = (pred: (s: SeedSession) => boolean) =>
    newestFirst.filter((n) => pred(SESSIONS.find((s) => s.name === n)!));

  async function evaluation(o: {
    session?: string;
    decision: string;
    mode?: string;
    dryRun?: boolean;
    hour: number;
    matched?: Array<{ policyId: string; name: string; decision: string }>;
    version?: string;
  }): Promise<string> {
    const id = newId();
    const version = o.version ?? SESSIONS.find((s) => s.name === o.session)?.version ?? 'A1';
    await db.guardrailEvaluation.create({
      data: {
        id,
        projectId,
        agentId: agents[version.startsWith('A') ? 'A' : 'B']!,
        agentVersionId: versions[version]!,
        sessionId: o.session ? ids[o.session]! : null,
        mode: o.mode ?? 'enforce',
        policyDecision: o.decision,
        effectiveDecision: o.decision,
        matchedGuardrails: (o.matched ?? []).map((m) => ({ ...m, version: 1, reason: 'test' })),
        wouldBlock: o.decision === 'block',
        wouldRequireApproval: o.decision === 'require_approval',
        dryRun: o.dryRun ?? false,
        input: {},
        evaluatedAt: at(o.hour),
      },
    });
    return id;
  }

  async function event(o: { session: string; type: string; hour: number; seq: number; data?: object }) {
    const s = SESSIONS.find((x) => x.name === o.session)!;
    const id = newId();
    await db.event.create({
      data: {
        id,
        projectId,
        sessionId: ids[o.session]!,
        agentId: agents[s.agent]!,
        agentVersionId: versions[s.version]!,
        type: o.type,
        time: at(o.hour),
        sequence: o.seq,
        data: o.data ?? {},
      },
    });
    return id;
  }

  beforeAll(async () => {
    tdb = await createTestDatabase();
    db = createPrisma(tdb.url);
    projectId = (await createProject(db, 'dashboard')).id;
    const other = await createProject(db, 'other');
    for (const [p, set] of [
      [projectId, (s: string) => (key = s)],
      [other.id, (s: string) => (otherKey = s)],
    ] as const) {
      const k = generateApiKey();
      await createApiKey(db, p, {
        name: 'read',
        prefix: k.prefix,
        hash: hashApiKey(k.secret),
        scopes: ['read'],
      });
      set(k.secret);
    }
    for (const a of ['A', 'B']) {
      agents[a] = newId();
      await db.agent.create({
        data: { id: agents[a]!, projectId, key: `agent-${a}`, name: `Agent ${a}`, lastSeenAt: at(12) },
      });
    }
    for (const [v, a, h] of [
      ['A1', 'A', 0],
      ['A2', 'A', 2],
      ['B1', 'B', 3],
    ] as const) {
      versions[v] = newId();
      await db.agentVersion.create({
        data: {
          id: versions[v]!,
          projectId,
          agentId: agents[a]!,
          version: v,
          metadata: { model: `m-${v}` },
          capabilities: [{ name: `tool-${v}`, kind: 'tool' }],
          createdAt: at(h),
        },
      });
    }
    for (const s of SESSIONS) {
      ids[s.name] = newId();
      await db.session.create({
        data: {
          id: ids[s.name]!,
          projectId,
          agentId: agents[s.agent]!,
          agentVersionId: versions[s.version]!,
          status: s.status,
          inputSummary: s.summary,
          startedAt: at(s.hour),
          lastEventAt: at(s.hour + 0.5),
          eventCount: 1,
          maxSequence: 1,
        },
      });
    }
    // Newest first; s8 and s9 start together, the greater id first (PostgreSQL orders uuids as their hex text).
    newestFirst = SESSIONS.slice()
      .sort((a, b) => b.hour - a.hour || (ids[b.name]! > ids[a.name]! ? 1 : -1))
      .map((s) => s.name);
    // A session of another project that must never appear.
    const foreignAgent = newId();
    const foreignVersion = newId();
    await db.agent.create({ data: { id: foreignAgent, projectId: other.id, key: 'foreign' } });
    await db.agentVersion.create({
      data: { id: foreignVersion, projectId: other.id, agentId: foreignAgent, version: 'x' },
    });
    ids.foreign = newId();
    await db.session.create({
      data: {
        id: ids.foreign,
        projectId: other.id,
        agentId: foreignAgent,
        agentVersionId: foreignVersion,
        inputSummary: 'Refund everything',
        startedAt: at(9),
        lastEventAt: at(9),
      },
    });

    // Blocks: s1 enforce block (+ the client's event reporting the same evaluation), s4 a client
    // event with outcome blocked only. Not blocks: s2 monitor block, s3 dry-run block, s5 warn.
    const P1 = { policyId: 'p-1', name: 'no unknown IBAN', decision: 'block' };
    const P2 = { policyId: 'p-2', name: 'warn on upload', decision: 'warn' };
    const e1 = await evaluation({ session: 's1', decision: 'block', hour: 1.25, matched: [P1, P2] });
    await evaluation({ session: 's2', decision: 'block', mode: 'monitor', hour: 2.25, matched: [P1] });
    await evaluation({ session: 's3', decision: 'block', dryRun: true, hour: 3.25, matched: [P1] });
    await evaluation({ session: 's5', decision: 'warn', hour: 5.25, matched: [P2] });
    await evaluation({ session: 's6', decision: 'require_approval', hour: 6.1, matched: [] });
    await evaluation({ session: 's11', decision: 'allow', hour: 11.5 });
    ids.ev1 = await event({
      session: 's1',
      type: 'agent.guardrail.evaluated',
      hour: 1.3,
      seq: 2,
      data: { evaluationId: e1, policyDecision: 'block', outcome: 'blocked', mode: 'enforce' },
    });
    ids.ev4 = await event({
      session: 's4',
      type: 'agent.guardrail.evaluated',
      hour: 4.3,
      seq: 2,
      data: { policyDecision: 'block', outcome: 'blocked', mode: 'enforce' },
    });
    ids.ev5 = await event({
      session: 's5',
      type: 'agent.guardrail.evaluated',
      hour: 5.3,
      seq: 2,
      data: { policyDecision: 'warn', outcome: 'ran', mode: 'enforce' },
    });
    ids.ev0 = await event({ session: 's0', type: 'agent.session.started', hour: 0, seq: 1 });
    ids.ev3 = await event({ session: 's3', type: 'agent.tool.started', hour: 3.1, seq: 1 });
    // Approvals: s6 pending, s7 approved.
    for (const [s, status] of [
      ['s6', 'pending'],
      ['s7', 'approved'],
    ] as const) {
      const evaluationId = await evaluation({ session: s, decision: 'require_approval', hour: 7 });
      await db.approval.create({
        data: {
          id: newId(),
          projectId,
          evaluationId,
          agentId: agents[SESSIONS.find((x) => x.name === s)!.agent]!,
          sessionId: ids[s]!,
          status,
          request: {},
          expiresAt: at(100),
        },
      });
    }

    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root">dashboard</div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-4f2a9c1e.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg/>');
    const app = createApiApp(apiDeps(dist), () => true);
    server = await listen(app, 0, '127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await db?.$disconnect();
    await tdb?.drop();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  describe('GET /v1/sessions', () => {
    it('lists the project sessions newest first (id breaks ties), never another project', async () => {
      expect(await listAll('')).toEqual(newestFirst);
    });

    it('pages without duplicates or holes, whatever the page size', async () => {
      for (const limit of [1, 2, 5, 7]) expect(await listAll('', limit)).toEqual(newestFirst);
      expect(await listAll(`&agentId=${agents.A}`, 3)).toEqual(expected((s) => s.agent === 'A'));
    });

    it('filters by agent and by version', async () => {
      expect(await listAll(`&agentId=${agents.B}`)).toEqual(expected((s) => s.agent === 'B'));
      expect(await listAll(`&agentVersionId=${versions.A2}`)).toEqual(expected((s) => s.version === 'A2'));
    });

    it('filters by start time: from inclusive, to exclusive', async () => {
      const q = `&from=${at(3).toISOString()}&to=${at(8).toISOString()}`;
      expect(await listAll(q)).toEqual(expected((s) => s.hour >= 3 && s.hour < 8));
    });

    it('filters by one or several statuses', async () => {
      expect(await listAll('&status=failed')).toEqual(expected((s) => s.status === 'failed'));
      expect(await listAll('&status=failed,cancelled')).toEqual(
        expected((s) => s.status === 'failed' || s.status === 'cancelled'),
      );
    });

    it('hasBlocks: enforce-mode block evaluations and client events with outcome blocked, nothing else', async () => {
      expect(await listAll('&hasBlocks=true')).toEqual(expected((s) => s.name === 's1' || s.name === 's4'));
      expect(await listAll('&hasBlocks=false')).toEqual(expected((s) => s.name !== 's1' && s.name !== 's4'));
    });

    it('hasPendingApprovals', async () => {
      expect(await listAll('&hasPendingApprovals=true')).toEqual(['s6']);
      expect(await listAll('&hasPendingApprovals=false')).toEqual(expected((s) => s.name !== 's6'));
    });

    it('q: case-insensitive substring of the input summary; % and _ match themselves', async () => {
      expect(await listAll('&q=refund')).toEqual(['s8', 's3', 's0']);
      expect(await listAll(`&q=${encodeURIComponent('100%')}`)).toEqual(['s5']);
      expect(await listAll(`&q=${encodeURIComponent('Summarise_the')}`)).toEqual(['s9']);
      expect(await listAll('&q=zz-no-such-text')).toEqual([]);
    });

    it('combines filters with AND', async () => {
      expect(await listAll(`&agentId=${agents.A}&q=refund&status=failed`)).toEqual(['s8']);
      expect(await listAll(`&agentId=${agents.B}&hasBlocks=true&from=${at(4).toISOString()}`)).toEqual([
        's4',
      ]);
    });

    it('each row carries its blocks (one per evaluation) and pending approvals', async () => {
      const r = await get('/v1/sessions?limit=50');
      const byName = Object.fromEntries(
        names(r.body.items).map((n, i) => [
          n,
          r.body.items[i] as { blocks: number; pendingApprovals: number },
        ]),
      );
      expect(byName.s1).toMatchObject({ blocks: 1, pendingApprovals: 0 });
      expect(byName.s4).toMatchObject({ blocks: 1, pendingApprovals: 0 });
      expect(byName.s6).toMatchObject({ blocks: 0, pendingApprovals: 1 });
      expect(byName.s2).toMatchObject({ blocks: 0, pendingApprovals: 0 });
    });

    it('answers 400 problem+json naming the bad parameter', async () => {
      for (const [q, p] of [
        ['status=finished', 'status'],
        ['hasBlocks=maybe', 'hasBlocks'],
        ['from=yesterday', 'from'],
        ['cursor=nonsense', 'cursor'],
      ]) {
        const r = await get(`/v1/sessions?${q}`);
        expect(r.status).toBe(400);
        expect(r.headers.get('content-type')).toContain('application/problem+json');
        expect(r.body.errors.map((e: { path: string }) => e.path).join(' ')).toContain(p);
      }
    });
  });

  describe('GET /v1/events', () => {
    const evNames = (items: Array<{ id: string }>) => names(items);
    it('filters by type, agent, session, decision and time; pages without holes', async () => {
      expect(evNames((await get('/v1/events?type=agent.guardrail.evaluated')).body.items)).toEqual([
        'ev5',
        'ev4',
        'ev1',
      ]);
      expect(evNames((await get(`/v1/events?agentId=${agents.B}`)).body.items)).toEqual(['ev4', 'ev3']);
      expect(evNames((await get(`/v1/events?sessionId=${ids.s1}`)).body.items)).toEqual(['ev1']);
      expect(evNames((await get('/v1/events?decision=block')).body.items)).toEqual(['ev4', 'ev1']);
      expect(evNames((await get('/v1/events?decision=warn')).body.items)).toEqual(['ev5']);
      expect(evNames((await get('/v1/events?decision=block&type=agent.tool.started')).body.items)).toEqual(
        [],
      );
      const q = `from=${at(1.3).toISOString()}&to=${at(4.3).toISOString()}`;
      expect(evNames((await get(`/v1/events?${q}`)).body.items)).toEqual(['ev3', 'ev1']);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await get(`/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...evNames(r.body.items));
        cursor = r.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(['ev5', 'ev4', 'ev3', 'ev1', 'ev0']);
      expect((await get('/v1/events?decision=maybe')).status).toBe(400);
      expect((await get('/v1/events', otherKey)).body.items).toEqual([]);
    });
  });

  describe('GET /v1/agents/:agentId', () => {
    it('identity, versions newest first with metadata and capabilities, sessions and decisions per version', async () => {
      const r = await get(`/v1/agents/${agents.A}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: agents.A, key: 'agent-A', name: 'Agent A', sessions: 8 });
      expect(r.body.firstSeenAt).toBe(at(0).toISOString());
      expect(r.body.lastSeenAt).toBe(at(12).toISOString());
      const [a2, a1] = r.body.versions;
      expect(a2).toMatchObject({
        id: versions.A2,
        version: 'A2',
        metadata: { model: 'm-A2' },
        capabilities: [{ name: 'tool-A2', kind: 'tool' }],
        sessions: 4,
        firstSeenAt: at(2).toISOString(),
        lastSeenAt: at(11.5).toISOString(),
        // s2 monitor block, s5 warn, s6 require_approval (+ its approval's evaluation), s11 allow
        decisions: { allow: 1, warn: 1, block: 1, require_approval: 2 },
      });
      expect(a1).toMatchObject({
        version: 'A1',
        sessions: 4,
        firstSeenAt: at(0).toISOString(),
        lastSeenAt: at(8.5).toISOString(),
        decisions: { allow: 0, warn: 0, block: 1, require_approval: 0 },
      });
      expect(r.body.decisions).toEqual({ allow: 1, warn: 1, block: 2, require_approval: 2 });
    });

    it('404 for an unknown agent or one of another project; 400 for a malformed id', async () => {
      expect((await get(`/v1/agents/${newId()}`)).status).toBe(404);
      expect((await get(`/v1/agents/${agents.A}`, otherKey)).status).toBe(404);
      expect((await get('/v1/agents/not-a-uuid')).status).toBe(400);
    });
  });

  describe('stats', () => {
    it('decisions per hour bucket, zeros included, dry runs excluded', async () => {
      const r = await get(
        `/v1/stats/decisions?bucket=hour&from=${at(0).toISOString()}&to=${at(12).toISOString()}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.items).toHaveLength(12);
      expect(r.body.items.map((b: { start: string }) => b.start)).toEqual(
        Array.from({ length: 12 }, (_, i) => at(i).toISOString()),
      );
      const byHour = (h: number) => r.body.items[h];
      expect(byHour(1)).toMatchObject({ block: 1, total: 1 });
      expect(byHour(2)).toMatchObject({ block: 1, total: 1 }); // monitor mode still has policyDecision block
      expect(byHour(3)).toMatchObject({ total: 0 }); // the dry run
      expect(byHour(7)).toMatchObject({ require_approval: 2, total: 2 });
      expect(r.body.totals).toEqual({ allow: 1, warn: 1, block: 2, require_approval: 3 });
    });

    it('decisions per day; 400 when the range holds too many buckets or is empty', async () => {
      const r = await get(
        `/v1/stats/decisions?bucket=day&from=${at(-24).toISOString()}&to=${at(24).toISOString()}`,
      );
      expect(r.body.items.map((b: { total: number }) => b.total)).toEqual([0, 7]);
      expect((await get(`/v1/stats/decisions?bucket=hour&from=2000-01-01T00:00:00Z`)).status).toBe(400);
      expect(
        (await get(`/v1/stats/decisions?from=${at(2).toISOString()}&to=${at(1).toISOString()}`)).status,
      ).toBe(400);
    });

    it('top matched policies from matchedGuardrails', async () => {
      const r = await get(`/v1/stats/top-policies?from=${at(0).toISOString()}&to=${at(24).toISOString()}`);
      expect(r.status).toBe(200);
      expect(r.body.items).toEqual(
        [
          {
            policyId: 'p-1',
            name: 'no unknown IBAN',
            matches: 2,
            decisions: { allow: 0, warn: 0, block: 2, require_approval: 0 },
            lastMatchedAt: at(2.25).toISOString(),
          },
          {
            policyId: 'p-2',
            name: 'warn on upload',
            matches: 2,
            decisions: { allow: 0, warn: 2, block: 0, require_approval: 0 },
            lastMatchedAt: at(5.25).toISOString(),
          },
        ].sort((a, b) => b.lastMatchedAt.localeCompare(a.lastMatchedAt)),
      );
      const one = await get(
        `/v1/stats/top-policies?limit=1&from=${at(0).toISOString()}&to=${at(24).toISOString()}`,
      );
      expect(one.body.items).toHaveLength(1);
    });

    it('a time bound outside 1970–9999 is a 400 naming it, not a 500 (year 0 or a 5-digit year in UTC)', async () => {
      for (const [route, query, path] of [
        ['/v1/stats/top-policies', 'to=0001-01-02T08:26:42-15:12', 'to'],
        ['/v1/stats/decisions', 'to=9999-12-31T23:00:00-15:00', 'to'],
        ['/v1/sessions', 'from=0001-01-01T00:00:00Z', 'from'],
        ['/v1/llm/usage', 'to=0001-01-02T00:00:00Z', 'to'],
      ] as const) {
        const r = await get(`${route}?${query}`);
        expect([route, r.status, r.headers.get('content-type')]).toEqual([
          route,
          400,
          expect.stringContaining('application/problem+json'),
        ]);
        expect(JSON.stringify(r.body)).toContain(path);
      }
    });
  });

  describe('serving the dashboard build', () => {
    it('index.html without caching at / and for client-side routes; hashed assets cached for a year', async () => {
      // A browser navigation names text/html in Accept.
      for (const p of ['/', '/sessions', `/sessions/${ids.s1}`, '/guardrails/policies/new']) {
        const r = await fetch(server.url + p, {
          headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
        });
        expect(r.status).toBe(200);
        expect(await r.text()).toContain('dashboard');
        expect(r.headers.get('cache-control')).toBe('no-cache');
      }
      const asset = await fetch(`${server.url}/assets/index-4f2a9c1e.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const icon = await fetch(`${server.url}/favicon.svg`);
      expect(icon.headers.get('cache-control')).toBe('no-cache');
    });

    it('unknown API, probe and health-like paths and missing files stay problem+json 404, even for a browser', async () => {
      const paths = ['/v1/nope', '/v1', '/assets/missing-12345678.js', '/metrics', '/healthz', '/readyz'];
      for (const p of [...paths, '/livez', '/api', '/api/v1/sessions', '/.well-known/security.txt']) {
        for (const accept of ['*/*', 'text/html,*/*;q=0.8']) {
          const r = await fetch(server.url + p, { headers: { accept } });
          expect({ p, accept, status: r.status }).toEqual({ p, accept, status: 404 });
          expect(r.headers.get('content-type')).toContain('application/problem+json');
          expect(((await r.json()) as { instance?: string }).instance).toBe(p);
        }
      }
      expect((await call(server.url, 'POST', '/sessions')).status).toBe(404);
      // A client-side route asked for without text/html (curl, an API client) is not the dashboard either.
      const notBrowser = await fetch(`${server.url}/sessions`, { headers: { accept: '*/*' } });
      expect(notBrowser.status).toBe(404);
      expect(notBrowser.headers.get('content-type')).toContain('application/problem+json');
    });

    it('without a build, / explains how to build it', async () => {
      const app = createApiApp(apiDeps(path.join(dist, 'none')), () => true);
      const bare = await listen(app, 0, '127.0.0.1');
      try {
        const r = await fetch(`${bare.url}/`);
        expect(r.status).toBe(200);
        expect(await r.text()).toContain('npm run build -w @agent-warden/dashboard');
        expect((await fetch(`${bare.url}/sessions`)).status).toBe(404);
      } finally {
        await bare.close();
      }
    });
  });
});
