import fs from 'node:fs';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { migrate } from '../src';
import { copyMigrations, createTestDatabase, withClient } from './support/postgres';

const MIGRATION = '20261124200000_partitioned_events';
const DAY = 86_400_000;

/**
 * Migration `20261124200000_partitioned_events` on a database that already holds events
 * (docs/decisions.md "Events partitioned by week"): every row reads back unchanged from the
 * partitioned table, each in the week partition of its time (or the default partition when far
 * off), with the key `(project_id, id, time)`, the indexes and the foreign keys in place.
 */
describe('migration partitioned_events on an existing database', () => {
  const dbs: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.drop()));
  });

  function migrationsUpTo(including: boolean): string {
    const dir = copyMigrations();
    for (const name of fs.readdirSync(dir))
      if (name !== 'migration_lock.toml' && (including ? name > MIGRATION : name >= MIGRATION))
        fs.rmSync(path.join(dir, name), { recursive: true });
    return dir;
  }

  const readAll = (url: string) =>
    withClient(
      url,
      async (c) =>
        (
          await c.query(
            `SELECT id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id, type,
                  time, sequence, data, received_at FROM events ORDER BY id`,
          )
        ).rows,
    );

  it('keeps every row, each in the partition of its week, with keys, indexes and foreign keys', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    await migrate({ databaseUrl: db.url, migrationsDir: migrationsUpTo(false) });
    const ids = { project: newId(), agent: newId(), version: newId(), session: newId() };
    const now = Date.now();
    // Times: 3 weeks ago, 1 hour ago, now, and two client clocks far off (1999, 2100).
    const times = [now - 21 * DAY, now - 3_600_000, now, Date.UTC(1999, 0, 1), Date.UTC(2100, 0, 1)];
    await withClient(db.url, async (c) => {
      await c.query(`INSERT INTO projects (id, name) VALUES ($1, 'p')`, [ids.project]);
      await c.query(`INSERT INTO agents (id, project_id, key) VALUES ($1, $2, 'k')`, [
        ids.agent,
        ids.project,
      ]);
      await c.query(
        `INSERT INTO agent_versions (id, project_id, agent_id, version) VALUES ($1, $2, $3, '1')`,
        [ids.version, ids.project, ids.agent],
      );
      await c.query(
        `INSERT INTO sessions (id, project_id, agent_id, agent_version_id, started_at, last_event_at, event_count)
         VALUES ($1, $2, $3, $4, now(), now(), 5)`,
        [ids.session, ids.project, ids.agent, ids.version],
      );
      for (const [i, t] of times.entries())
        await c.query(
          `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
           VALUES ($1, $2, $3, $4, $5, 'agent.custom', $6, $7, $8)`,
          [newId(), ids.project, ids.session, ids.agent, ids.version, new Date(t), i + 1, { name: `e${i}` }],
        );
    });
    const before = await readAll(db.url);
    expect(before).toHaveLength(5);

    expect(await migrate({ databaseUrl: db.url, migrationsDir: migrationsUpTo(true) })).toEqual({
      applied: [MIGRATION],
    });
    expect(await readAll(db.url)).toEqual(before);

    await withClient(db.url, async (c) => {
      const where = await c.query<{ part: string; sequence: number }>(
        `SELECT tableoid::regclass::text AS part, sequence FROM events ORDER BY sequence`,
      );
      const week = (t: number) => {
        const d = new Date(t);
        const monday =
          Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
        return `events_p${new Date(monday).toISOString().slice(0, 10).replaceAll('-', '')}`;
      };
      expect(where.rows).toEqual([
        { part: week(times[0]!), sequence: 1 },
        { part: week(times[1]!), sequence: 2 },
        { part: week(times[2]!), sequence: 3 },
        { part: 'events_default', sequence: 4 },
        { part: 'events_default', sequence: 5 },
      ]);
      const strategy = await c.query(
        `SELECT partstrat, pg_get_partkeydef('events'::regclass) AS key FROM pg_partitioned_table
          WHERE partrelid = 'events'::regclass`,
      );
      expect(strategy.rows).toEqual([{ partstrat: 'r', key: 'RANGE ("time")' }]);
      const pk = await c.query<{ def: string }>(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
          WHERE conname = 'events_pkey' AND conrelid = 'events'::regclass`,
      );
      expect(pk.rows[0]!.def).toBe('PRIMARY KEY (project_id, id, "time")');
      const indexes = await c.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE tablename = 'events' ORDER BY indexname`,
      );
      expect(indexes.rows.map((r) => r.indexname)).toEqual([
        'events_pkey',
        'events_project_id_agent_id_time_idx',
        'events_project_id_time_idx',
        'events_project_id_type_time_idx',
        'events_session_id_time_sequence_idx',
      ]);
      // The foreign keys hold on the new table: no event may name another project's agent version.
      await expect(
        c.query(
          `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
           VALUES ($1, $2, $3, $4, $5, 'agent.custom', now(), 9, '{}')`,
          [newId(), ids.project, ids.session, ids.agent, newId()],
        ),
      ).rejects.toThrow(/events_project_id_agent_version_id_fkey/);
      const old = await c.query(
        `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'events_unpartitioned'`,
      );
      expect(old.rows).toEqual([{ n: 0 }]);
    });
  });
  it("refuses, changing nothing, when existing events name another project's agent version (repair first)", async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    await migrate({ databaseUrl: db.url, migrationsDir: migrationsUpTo(false) });
    const a = { project: newId(), agent: newId(), version: newId(), session: newId() };
    const b = { project: newId(), agent: newId() };
    await withClient(db.url, async (c) => {
      for (const [p, ag] of [
        [a.project, a.agent],
        [b.project, b.agent],
      ] as const) {
        await c.query(`INSERT INTO projects (id, name) VALUES ($1, 'p')`, [p]);
        await c.query(`INSERT INTO agents (id, project_id, key) VALUES ($1, $2, 'k')`, [ag, p]);
      }
      await c.query(
        `INSERT INTO agent_versions (id, project_id, agent_id, version) VALUES ($1, $2, $3, '1')`,
        [a.version, a.project, a.agent],
      );
      await c.query(
        `INSERT INTO sessions (id, project_id, agent_id, agent_version_id, started_at, last_event_at, event_count)
         VALUES ($1, $2, $3, $4, now(), now(), 1)`,
        [a.session, a.project, a.agent, a.version],
      );
      // What 20261124100000_project_scoped_ids leaves NOT VALID on such a database: a row of project
      // B naming A's agent version, stored before that migration.
      await c.query(`ALTER TABLE events DROP CONSTRAINT events_project_id_agent_version_id_fkey`);
      await c.query(
        `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
         VALUES ($1, $2, $3, $4, $5, 'agent.custom', now(), 1, '{}')`,
        [newId(), b.project, a.session, b.agent, a.version],
      );
      await c.query(`ALTER TABLE events ADD CONSTRAINT events_project_id_agent_version_id_fkey
        FOREIGN KEY (project_id, agent_version_id) REFERENCES agent_versions (project_id, id) NOT VALID`);
    });
    const before = await readAll(db.url);
    await expect(migrate({ databaseUrl: db.url, migrationsDir: migrationsUpTo(true) })).rejects.toMatchObject(
      {
        code: 'MIGRATION_FAILED',
        message: expect.stringContaining("point at another project's agent or agent version"),
      },
    );
    expect(await readAll(db.url)).toEqual(before);
    await withClient(db.url, async (c) => {
      const partitioned = await c.query(`SELECT count(*)::int AS n FROM pg_partitioned_table`);
      expect(partitioned.rows).toEqual([{ n: 0 }]);
    });
  });
});
