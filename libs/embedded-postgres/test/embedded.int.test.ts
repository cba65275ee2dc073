import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { EMBEDDED_POOL_MAX } from '../src';
import {
  PrismaClient,
  dropExpiredEventPartitions,
  ensureEventPartitions,
  eventPartitionFor,
  eventWeekStart,
} from '@agent-warden/db';
import { migrate, readMigrationsDir } from '@agent-warden/migrations';
import { startEmbeddedProcess, type EmbeddedProcess } from './support/embedded';
import { MIGRATIONS_DIR, withClient } from '../../migrations/test/support/postgres';

const MIGRATIONS = readMigrationsDir(MIGRATIONS_DIR).map((m) => m.name);

// startEmbeddedPostgres() runs in a child process: PGlite cannot start inside a Jest worker (see
// support/embedded-server.ts). Everything else (migrate, pg, Prisma) runs here, over TCP.
describe('embedded PostgreSQL (PGlite behind pglite-socket)', () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warden-embedded-')), 'pgdata');
  const projectId = randomUUID();
  const agentId = randomUUID();
  let server: EmbeddedProcess | undefined;

  afterAll(async () => {
    await server?.stop();
    server = undefined;
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('starts on a free port (taking over a stale lock) and takes the migrations', async () => {
    fs.writeFileSync(`${dataDir}.lock`, '2147483646'); // left by a process that is gone
    server = await startEmbeddedProcess(dataDir);
    expect(server.url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(server.port).toBeGreaterThan(0);

    expect(await migrate({ databaseUrl: server.url })).toEqual({ applied: MIGRATIONS });
    expect(await migrate({ databaseUrl: server.url })).toEqual({ applied: [] });
  }, 60_000);

  it('serves SQL through pg', async () => {
    await withClient(server!.url, async (c) => {
      await c.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'embedded']);
      const row = await c.query('SELECT name, default_decision, created_at FROM projects WHERE id = $1', [
        projectId,
      ]);
      expect(row.rows).toEqual([
        { name: 'embedded', default_decision: 'allow', created_at: expect.any(Date) },
      ]);
      await expect(
        c.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'again']),
      ).rejects.toThrow(/projects_pkey/);
    });
  });

  it('serves the generated Prisma client through @prisma/adapter-pg', async () => {
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: server!.url, max: EMBEDDED_POOL_MAX }),
    });
    try {
      await prisma.agent.create({
        data: { id: agentId, projectId, key: 'support-bot', name: 'Support bot' },
      });
      const [, agents] = await prisma.$transaction([
        prisma.agentVersion.create({
          data: { id: randomUUID(), projectId, agentId, version: '1.0.0', metadata: { model: 'x' } },
        }),
        prisma.agent.findMany({ where: { projectId }, include: { versions: true } }),
      ]);
      expect(agents).toHaveLength(1);
      expect(agents[0]).toMatchObject({
        key: 'support-bot',
        versions: [{ version: '1.0.0', metadata: { model: 'x' }, capabilities: [] }],
      });
      await expect(
        prisma.agent.create({ data: { id: randomUUID(), projectId, key: 'support-bot' } }),
      ).rejects.toMatchObject({ code: 'P2002' });
    } finally {
      await prisma.$disconnect();
    }
  }, 30_000);

  it('runs the partitioned events table: partitions created ahead, rows moved out of the default one, old ones dropped', async () => {
    // docs/decisions.md "Events partitioned by week": the same SQL as on a PostgreSQL server.
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: server!.url, max: EMBEDDED_POOL_MAX }),
    });
    const DAY = 86_400_000;
    const parts = async () =>
      (
        await prisma.$queryRaw<{ name: string }[]>`
          SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`
      ).map((r) => r.name);
    try {
      const version = await prisma.agentVersion.findFirstOrThrow({ where: { projectId, agentId } });
      const sessionId = randomUUID();
      const old = new Date(Date.now() - 90 * DAY);
      await prisma.$executeRaw`
        INSERT INTO sessions (id, project_id, agent_id, agent_version_id, started_at, last_event_at, event_count)
        VALUES (${sessionId}::uuid, ${projectId}::uuid, ${agentId}::uuid, ${version.id}::uuid, ${old}, ${old}, 1)`;
      await prisma.$executeRaw`
        INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
        VALUES (${randomUUID()}::uuid, ${projectId}::uuid, ${sessionId}::uuid, ${agentId}::uuid,
                ${version.id}::uuid, 'agent.custom', ${old}, 1, '{}'::jsonb)`;
      const where = async () =>
        (await prisma.$queryRaw<{ part: string }[]>`SELECT tableoid::regclass::text AS part FROM events`)[0]!
          .part;
      expect(await where()).toBe('events_default');
      expect((await ensureEventPartitions(prisma)).created).toEqual([]);
      const made = await ensureEventPartitions(prisma, old, 0);
      const week = eventPartitionFor(eventWeekStart(old)).name;
      expect(made).toEqual({ created: [week], moved: 1 });
      expect(await where()).toBe(week);
      expect(await dropExpiredEventPartitions(prisma)).toEqual([]); // no retention window: kept
      await prisma.project.update({ where: { id: projectId }, data: { retentionDays: 30 } });
      expect(await dropExpiredEventPartitions(prisma)).toEqual([week]);
      expect(await parts()).not.toContain(week);
      expect(await prisma.event.count()).toBe(0);
      await prisma.project.update({ where: { id: projectId }, data: { retentionDays: null } });
      await prisma.$executeRaw`DELETE FROM sessions WHERE id = ${sessionId}::uuid`;
    } finally {
      await prisma.$disconnect();
    }
  }, 60_000);

  it('keeps concurrent connections from mixing up their statements and transactions', async () => {
    const clients = await Promise.all(
      [0, 1, 2].map(async () => {
        const c = new pg.Client({ connectionString: server!.url });
        await c.connect();
        return c;
      }),
    );
    try {
      await Promise.all(
        clients.map(async (c, k) => {
          for (let i = 0; i < 60; i++) {
            if (i % 20 === 0) {
              await c.query('BEGIN');
              await c.query('SELECT count(*) FROM projects WHERE name = $1', [`k${k}`]);
              await c.query('COMMIT');
            }
            const r = await c.query(
              k === 0 ? 'SELECT $1::int AS v' : 'SELECT $1::text AS v, $2::int AS w',
              k === 0 ? [i] : [`k${k}-${i}`, i],
            );
            expect(r.rows[0].v).toBe(k === 0 ? i : `k${k}-${i}`);
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('refuses a second server on the same data directory', async () => {
    await expect(startEmbeddedProcess(dataDir)).rejects.toMatchObject({ code: 'EMBEDDED_DATA_DIR_LOCKED' });
  });

  it('stops, and a restart on the same directory has the data', async () => {
    expect(await server!.stop()).toBe(0);
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
    server = await startEmbeddedProcess(dataDir);

    expect(await migrate({ databaseUrl: server.url })).toEqual({ applied: [] });
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: server.url, max: EMBEDDED_POOL_MAX }),
    });
    try {
      const agent = await prisma.agent.findUnique({
        where: { projectId_key: { projectId, key: 'support-bot' } },
        include: { project: true, versions: true },
      });
      expect(agent).toMatchObject({
        id: agentId,
        name: 'Support bot',
        project: { name: 'embedded' },
        versions: [{ version: '1.0.0' }],
      });
    } finally {
      await prisma.$disconnect();
    }
  }, 60_000);
});
