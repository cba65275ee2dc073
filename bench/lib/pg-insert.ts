import { Client } from 'pg';
import type { AgentEvent } from '@agent-warden/contracts';

/** Columns the projector writes into `events` (all but `received_at`, which has a default). */
const EVENT_COLUMNS = [
  'id',
  'project_id',
  'session_id',
  'run_id',
  'parent_id',
  'agent_id',
  'agent_version_id',
  'type',
  'time',
  'sequence',
  'data',
] as const;

/** One `events` row as query parameters, in {@link EVENT_COLUMNS} order (`data` as JSON text). */
export type EventRow = (string | number | null)[];

/** The `events` rows of `events` of `projectId`, as the projector would store them. */
export function toEventRows(projectId: string, events: AgentEvent[]): EventRow[] {
  return events.map((e) => [
    e.id,
    projectId,
    e.sessionId,
    e.runId ?? null,
    e.parentId ?? null,
    e.agentId,
    e.agentVersionId,
    e.type,
    e.time,
    e.sequence,
    JSON.stringify(e.data),
  ]);
}

/** Splits `items` into consecutive chunks of at most `size`. */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The bare baseline: stores each group of rows over its own connection (one per partition), as
 * multi-row `INSERT INTO events (…) VALUES (…),(…) ON CONFLICT (project_id, id, time) DO NOTHING` statements of
 * `batchSize` rows, one after the other (autocommit: one round trip each). Resolves with the
 * wall-clock seconds from the first statement to the last commit.
 */
export async function bareInsert(url: string, groups: EventRow[][], batchSize: number): Promise<number> {
  const clients = await Promise.all(
    groups.map(async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  const width = EVENT_COLUMNS.length;
  const sqlFor = (n: number) =>
    `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ` +
    Array.from(
      { length: n },
      (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`,
    ).join(', ') +
    ' ON CONFLICT (project_id, id, time) DO NOTHING';
  try {
    const t0 = performance.now();
    await Promise.all(
      groups.map(async (rows, g) => {
        for (const chunk of chunks(rows, batchSize))
          await clients[g]!.query(sqlFor(chunk.length), chunk.flat());
      }),
    );
    return (performance.now() - t0) / 1000;
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

/**
 * Copies the rows the events' foreign keys point at — the project, its agents and agent versions —
 * from the database at `fromUrl` into the one at `toUrl` (same ids), so a bare INSERT of the same
 * events there meets the same constraints the projector's does (docs/decisions.md "Ids are owned by
 * a project"). Both databases must be migrated.
 */
export async function copyEventOwners(fromUrl: string, toUrl: string): Promise<void> {
  const from = new Client({ connectionString: fromUrl });
  const to = new Client({ connectionString: toUrl });
  await Promise.all([from.connect(), to.connect()]);
  try {
    for (const table of ['projects', 'agents', 'agent_versions']) {
      const { rows } = await from.query(`SELECT coalesce(json_agg(t), '[]') AS rows FROM ${table} t`);
      await to.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(null::${table}, $1)`, [
        JSON.stringify(rows[0].rows),
      ]);
    }
  } finally {
    await Promise.all([from.end(), to.end()]);
  }
}
