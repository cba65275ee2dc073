import type { PoolClient } from 'pg';
import type { ProjectedEvent } from './types';

/** The statement of {@link insertEvents}: `$1` is the batch as one JSON array. */
const INSERT_EVENTS = `
  INSERT INTO events (id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id,
                      type, time, sequence, data)
  SELECT id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id, type, time, sequence, data
  FROM jsonb_to_recordset($1::jsonb) AS x(
    id uuid, project_id uuid, session_id uuid, run_id uuid, parent_id uuid, agent_id uuid,
    agent_version_id uuid, type text, time timestamptz, sequence int, data jsonb)
  ON CONFLICT (project_id, id, time) DO NOTHING
  RETURNING project_id::text, id::text`;

/**
 * Inserts a batch of events in ONE statement on `client` (inside the caller's transaction): the batch
 * travels as a single JSON parameter that PostgreSQL expands with `jsonb_to_recordset`,
 * `ON CONFLICT (project_id, id, time) DO NOTHING` (event ids are unique per project: docs/decisions.md
 * "Ids are owned by a project"; `time` is in the key of the partitioned table and a re-delivery carries
 * the same time: "Events partitioned by week"), returning the keys actually inserted as
 * `[projectId, id]` pairs (so re-delivered events are recognised). Throws the driver's error (e.g. a
 * foreign-key violation, SQLSTATE 23503, for another project's agent or version).
 */
export async function insertEvents(
  client: PoolClient,
  events: readonly ProjectedEvent[],
): Promise<[projectId: string, id: string][]> {
  const json = JSON.stringify(
    events.map(({ projectId, event: e }) => ({
      id: e.id,
      project_id: projectId,
      session_id: e.sessionId,
      run_id: e.runId ?? null,
      parent_id: e.parentId ?? null,
      agent_id: e.agentId,
      agent_version_id: e.agentVersionId,
      type: e.type,
      time: e.time,
      sequence: e.sequence,
      data: e.data,
    })),
  );
  const r = await client.query<[string, string]>({ text: INSERT_EVENTS, values: [json], rowMode: 'array' });
  return r.rows;
}
