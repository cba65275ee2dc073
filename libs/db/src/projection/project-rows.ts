import type { PoolClient } from 'pg';
import { evaluationRow, type EvaluationRecord } from '@agent-warden/contracts';
import type { LlmCallRow } from '../llm-calls';
import type { ScoreRow } from '../scores';
import type { RunAgg, SessionAgg } from './aggregate';

/*
 * The projections of one batch — sessions, runs, scores, LLM calls, guardrail evaluations — in ONE
 * statement of data-modifying CTEs (one round trip), each table's rows as one JSON parameter
 * expanded with `jsonb_to_recordset`. The sub-statements touch different tables; the foreign keys
 * between them (a score's or an LLM call's session) are checked at the end of the statement, when
 * the sessions upserted beside them are there. Same SQL semantics as the Prisma calls this replaced:
 * sessions and runs upserted on `(project_id, id)`, scores, LLM calls and evaluations inserted with
 * `ON CONFLICT DO NOTHING` (Prisma's `skipDuplicates`), only the rows actually inserted counted.
 */
const PROJECT = `
WITH
s AS (
  INSERT INTO sessions (id, project_id, agent_id, agent_version_id, status, input_summary, started_at,
                        ended_at, last_event_at, event_count, max_sequence)
  SELECT id, project_id, agent_id, agent_version_id, status, input_summary, started_at, ended_at,
         last_event_at, event_count, max_sequence
  FROM jsonb_to_recordset($1::jsonb) AS x(
    id uuid, project_id uuid, agent_id uuid, agent_version_id uuid, status text, input_summary text,
    started_at timestamptz, ended_at timestamptz, last_event_at timestamptz, event_count int, max_sequence int)
  ON CONFLICT (project_id, id) DO UPDATE SET
    started_at    = LEAST(sessions.started_at, EXCLUDED.started_at),
    last_event_at = GREATEST(sessions.last_event_at, EXCLUDED.last_event_at),
    ended_at      = COALESCE(EXCLUDED.ended_at, sessions.ended_at),
    status        = CASE WHEN EXCLUDED.ended_at IS NOT NULL THEN EXCLUDED.status ELSE sessions.status END,
    input_summary = COALESCE(sessions.input_summary, EXCLUDED.input_summary),
    event_count   = sessions.event_count + EXCLUDED.event_count,
    max_sequence  = GREATEST(sessions.max_sequence, EXCLUDED.max_sequence)
),
r AS (
  INSERT INTO runs (id, project_id, session_id, agent_id, agent_version_id, name, status, input_summary,
                    output_summary, error, started_at, ended_at)
  SELECT id, project_id, session_id, agent_id, agent_version_id, name, status, input_summary,
         output_summary, error, started_at, ended_at
  FROM jsonb_to_recordset($2::jsonb) AS x(
    id uuid, project_id uuid, session_id uuid, agent_id uuid, agent_version_id uuid, name text, status text,
    input_summary text, output_summary text, error text, started_at timestamptz, ended_at timestamptz)
  ON CONFLICT (project_id, id) DO UPDATE SET
    name           = COALESCE(EXCLUDED.name, runs.name),
    status         = CASE WHEN EXCLUDED.ended_at IS NOT NULL OR runs.ended_at IS NULL THEN EXCLUDED.status ELSE runs.status END,
    input_summary  = COALESCE(EXCLUDED.input_summary, runs.input_summary),
    output_summary = COALESCE(EXCLUDED.output_summary, runs.output_summary),
    error          = COALESCE(EXCLUDED.error, runs.error),
    started_at     = COALESCE(EXCLUDED.started_at, runs.started_at),
    ended_at       = COALESCE(EXCLUDED.ended_at, runs.ended_at)
),
sc AS (
  INSERT INTO scores (id, project_id, session_id, run_id, agent_id, agent_version_id, name, data_type,
                      numeric_value, string_value, source, comment, author, event_id, time)
  SELECT id, project_id, session_id, run_id, agent_id, agent_version_id, name, data_type, numeric_value,
         string_value, source, comment, author, event_id, time
  FROM jsonb_to_recordset($3::jsonb) AS x(
    id uuid, project_id uuid, session_id uuid, run_id uuid, agent_id uuid, agent_version_id uuid, name text,
    data_type text, numeric_value float8, string_value text, source text, comment text, author text,
    event_id uuid, time timestamptz)
  ON CONFLICT DO NOTHING
  RETURNING 1
),
lc AS (
  INSERT INTO llm_calls (id, project_id, session_id, run_id, agent_id, agent_version_id, event_id, time,
                         operation, provider, model, response_model, input_tokens, output_tokens,
                         cached_input_tokens, duration_ms, cost_usd, cost_source, finish_reasons,
                         error_type, error_message)
  SELECT id, project_id, session_id, run_id, agent_id, agent_version_id, event_id, time, operation, provider,
         model, response_model, input_tokens, output_tokens, cached_input_tokens, duration_ms, cost_usd,
         cost_source, finish_reasons, error_type, error_message
  FROM jsonb_to_recordset($4::jsonb) AS x(
    id uuid, project_id uuid, session_id uuid, run_id uuid, agent_id uuid, agent_version_id uuid,
    event_id uuid, time timestamptz, operation text, provider text, model text, response_model text,
    input_tokens int, output_tokens int, cached_input_tokens int, duration_ms float8, cost_usd float8,
    cost_source text, finish_reasons text[], error_type text, error_message text)
  ON CONFLICT DO NOTHING
  RETURNING 1
),
ev AS (
  INSERT INTO guardrail_evaluations (id, project_id, agent_id, agent_version_id, session_id, run_id,
                                     tool_call_id, tool_name, mode, policy_decision, effective_decision,
                                     matched_guardrails, would_block, would_require_approval, dry_run,
                                     approval_id, input, provenance, evaluated_at)
  SELECT id, project_id, agent_id, agent_version_id, session_id, run_id, tool_call_id, tool_name, mode,
         policy_decision, effective_decision, matched_guardrails, would_block, would_require_approval,
         COALESCE(dry_run, false), approval_id, input, provenance, evaluated_at
  FROM jsonb_to_recordset($5::jsonb) AS x(
    id uuid, project_id uuid, agent_id uuid, agent_version_id uuid, session_id uuid, run_id uuid,
    tool_call_id uuid, tool_name text, mode text, policy_decision text, effective_decision text,
    matched_guardrails jsonb, would_block boolean, would_require_approval boolean, dry_run boolean,
    approval_id uuid, input jsonb, provenance jsonb, evaluated_at timestamptz)
  ON CONFLICT DO NOTHING
  RETURNING project_id, session_id, dry_run
)
SELECT (SELECT count(*) FROM sc)::int AS scores,
       (SELECT count(*) FROM lc)::int AS llm_calls,
       (SELECT count(*) FROM ev)::int AS evaluations,
       (SELECT coalesce(json_agg(json_build_array(project_id, session_id)), '[]')
          FROM (SELECT DISTINCT project_id::text, session_id::text FROM ev
                 WHERE session_id IS NOT NULL AND NOT dry_run) e) AS evaluated`;

/** What {@link projectRows} stored. */
export interface Projected {
  scoresInserted: number;
  llmCallsInserted: number;
  evaluationsInserted: number;
  /** Sessions (per project) of the inserted evaluations that are not dry runs. */
  evaluatedSessions: { projectId: string; sessionId: string }[];
}

/** Column names by field name, filled as fields are met (a handful of names in all). */
const COLUMN_OF = new Map<string, string>();

/**
 * A row keyed by column name: every field `fooBar` becomes `foo_bar`, the mapping of each of these
 * models in prisma/schema.prisma. `jsonb_to_recordset` ignores keys its column list does not name and
 * reads absent or `undefined` ones as NULL; `JSON.stringify` writes a `Date` as its ISO string.
 */
function byColumn(row: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(row)) {
    let column = COLUMN_OF.get(field);
    if (column === undefined) {
      column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      COLUMN_OF.set(field, column);
    }
    out[column] = value;
  }
  return out;
}

/** One table's rows as the JSON array parameter of {@link PROJECT}. */
const rowsJson = (rows: readonly object[]) => JSON.stringify(rows.map(byColumn));

/**
 * Stores the projections of a batch in one statement on `client` (inside the caller's transaction):
 * `sessions` and `runs` upserted from their aggregates, `scores`, `llm_calls` and
 * `guardrail_evaluations` inserted at most once each. Returns the counts of rows actually inserted
 * and the sessions of the inserted non-dry-run evaluations. Throws the driver's error (a foreign-key
 * violation, SQLSTATE 23503, for an unknown session, agent or version of the project; a not-null
 * violation, 23502, for an evaluation whose `evaluatedAt` is not a date).
 */
export async function projectRows(
  client: PoolClient,
  rows: {
    sessions: readonly SessionAgg[];
    runs: readonly RunAgg[];
    scores: readonly ScoreRow[];
    llmCalls: readonly LlmCallRow[];
    evaluations: readonly EvaluationRecord[];
  },
): Promise<Projected> {
  const values = [
    rowsJson(rows.sessions.map((x) => ({ ...x, status: x.status ?? 'active', eventCount: x.count }))),
    rowsJson(rows.runs.map((x) => ({ ...x, status: x.status ?? 'running' }))),
    rowsJson(rows.scores),
    rowsJson(rows.llmCalls),
    rowsJson(rows.evaluations.map(evaluationRow)),
  ];
  const r = await client.query<{
    scores: number;
    llm_calls: number;
    evaluations: number;
    evaluated: [string, string][];
  }>(PROJECT, values);
  const row = r.rows[0]!;
  return {
    scoresInserted: row.scores,
    llmCallsInserted: row.llm_calls,
    evaluationsInserted: row.evaluations,
    evaluatedSessions: row.evaluated.map(([projectId, sessionId]) => ({ projectId, sessionId })),
  };
}
