import fs from 'node:fs';
import path from 'node:path';
import { newId } from '@agent-warden/contracts';
import { migrate } from '../src';
import { copyMigrations, createTestDatabase, withClient } from './support/postgres';

const MIGRATION = '20261124100000_project_scoped_ids';

/**
 * Migration `20261124100000_project_scoped_ids` on a database that already holds data
 * (docs/decisions.md "Ids are owned by a project"): the rows survive, the keys become
 * `(project_id, id)`, and the composite foreign keys are validated, except one that existing rows
 * crossing projects violate, which stays NOT VALID yet refuses new crossing rows.
 */
describe('migration project_scoped_ids on an existing database', () => {
  const dbs: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.drop()));
  });

  /** Copy of the migrations folder without those after `last` (or from `last` on, when `including` is false). */
  function migrationsUpTo(last: string, including: boolean): string {
    const dir = copyMigrations();
    for (const name of fs.readdirSync(dir))
      if (name !== 'migration_lock.toml' && (including ? name > last : name >= last))
        fs.rmSync(path.join(dir, name), { recursive: true });
    return dir;
  }

  /**
   * A database migrated up to the migration before this one, and the folder that adds just this one
   * (later migrations are tested by their own suites).
   */
  async function before(): Promise<{ url: string; all: string }> {
    const db = await createTestDatabase();
    dbs.push(db);
    const all = migrationsUpTo(MIGRATION, true);
    const older = migrationsUpTo(MIGRATION, false);
    await migrate({ databaseUrl: db.url, migrationsDir: older });
    return { url: db.url, all };
  }

  /** Project, agent, version, session, run and event rows of one project; returns their ids. */
  async function seed(url: string, eventVersionId?: string) {
    const p = {
      project: newId(),
      agent: newId(),
      version: newId(),
      session: newId(),
      run: newId(),
      event: newId(),
    };
    await withClient(url, async (c) => {
      await c.query(`INSERT INTO projects (id, name) VALUES ($1, 'p')`, [p.project]);
      await c.query(`INSERT INTO agents (id, project_id, key) VALUES ($1, $2, 'k')`, [p.agent, p.project]);
      await c.query(
        `INSERT INTO agent_versions (id, project_id, agent_id, version) VALUES ($1, $2, $3, '1')`,
        [p.version, p.project, p.agent],
      );
      await c.query(
        `INSERT INTO sessions (id, project_id, agent_id, agent_version_id, started_at, last_event_at, event_count)
         VALUES ($1, $2, $3, $4, now(), now(), 1)`,
        [p.session, p.project, p.agent, p.version],
      );
      await c.query(
        `INSERT INTO runs (id, project_id, session_id, agent_id, agent_version_id) VALUES ($1, $2, $3, $4, $5)`,
        [p.run, p.project, p.session, p.agent, p.version],
      );
      await c.query(
        `INSERT INTO events (id, project_id, session_id, run_id, agent_id, agent_version_id, type, time, sequence, data)
         VALUES ($1, $2, $3, $4, $5, $6, 'agent.custom', now(), 1, '{"name":"x"}')`,
        [p.event, p.project, p.session, p.run, p.agent, eventVersionId ?? p.version],
      );
    });
    return p;
  }

  const notValid = (url: string) =>
    withClient(url, async (c) =>
      (
        await c.query<{ conname: string }>(
          `SELECT conname FROM pg_constraint WHERE contype = 'f' AND NOT convalidated ORDER BY conname`,
        )
      ).rows.map((r) => r.conname),
    );

  it('keeps the rows, scopes the keys by project and validates every foreign key', async () => {
    const { url, all } = await before();
    const a = await seed(url);
    expect(await migrate({ databaseUrl: url, migrationsDir: all })).toEqual({ applied: [MIGRATION] });
    await withClient(url, async (c) => {
      const counts = await c.query(
        `SELECT (SELECT count(*) FROM sessions)::int AS s, (SELECT count(*) FROM runs)::int AS r,
                (SELECT count(*) FROM events)::int AS e`,
      );
      expect(counts.rows[0]).toEqual({ s: 1, r: 1, e: 1 });
      const pk = await c.query<{ def: string }>(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'events_pkey'`,
      );
      expect(pk.rows[0]!.def).toBe('PRIMARY KEY (project_id, id)');
      // Another project may now hold the same client ids.
      const b = await seed(url);
      await c.query(
        `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
         VALUES ($1, $2, $3, $4, $5, 'agent.custom', now(), 2, '{}')`,
        [a.event, b.project, a.session, b.agent, b.version],
      );
      // But no row may point at another project's agent version.
      await expect(
        c.query(
          `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
           VALUES ($1, $2, $3, $4, $5, 'agent.custom', now(), 3, '{}')`,
          [newId(), b.project, b.session, b.agent, a.version],
        ),
      ).rejects.toThrow(/events_project_id_agent_version_id_fkey/);
    });
    expect(await notValid(url)).toEqual([]);
  });

  it('leaves a constraint that existing crossing rows violate NOT VALID, still enforced for new rows', async () => {
    const { url, all } = await before();
    const a = await seed(url);
    // Stored through the old hole: an event of another project naming A's agent version.
    const crossing = await seed(url, a.version);
    expect(await migrate({ databaseUrl: url, migrationsDir: all })).toEqual({ applied: [MIGRATION] });
    expect(await notValid(url)).toEqual(['events_project_id_agent_version_id_fkey']);
    await withClient(url, async (c) => {
      expect((await c.query(`SELECT count(*)::int AS n FROM events`)).rows[0]).toEqual({ n: 2 });
      await expect(
        c.query(
          `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
           VALUES ($1, $2, $3, $4, $5, 'agent.custom', now(), 3, '{}')`,
          [newId(), crossing.project, crossing.session, crossing.agent, a.version],
        ),
      ).rejects.toThrow(/events_project_id_agent_version_id_fkey/);
    });
  });
});
