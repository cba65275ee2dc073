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

/** A time as the ms-precision ISO string Prisma sent for a `Date` (so rounding stays what it was). */
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function sessionJson(s: SessionAgg) {
  return {
    id: s.id,
    project_id: s.projectId,
    agent_id: s.agentId,
    agent_version_id: s.agentVersionId,
    status: s.status ?? 'active',
    input_summary: s.inputSummary,
    started_at: iso(s.startedAt),
    ended_at: iso(s.endedAt),
    last_event_at: iso(s.lastEventAt),
    event_count: s.count,
    max_sequence: s.maxSequence,
  };
}

function runJson(r: RunAgg) {
  return {
    id: r.id,
    project_id: r.projectId,
    session_id: r.sessionId,
    agent_id: r.agentId,
    agent_version_id: r.agentVersionId,
    name: r.name,
    status: r.status ?? 'running',
    input_summary: r.inputSummary,
    output_summary: r.outputSummary,
    error: r.error,
    started_at: iso(r.startedAt),
    ended_at: iso(r.endedAt),
  };
}

function scoreJson(s: ScoreRow) {
  return {
    id: s.id,
    project_id: s.projectId,
    session_id: s.sessionId,
    run_id: s.runId,
    agent_id: s.agentId,
    agent_version_id: s.agentVersionId,
    name: s.name,
    data_type: s.dataType,
    numeric_value: s.numericValue,
    string_value: s.stringValue,
    source: s.source,
    comment: s.comment,
    author: s.author,
    event_id: s.eventId,
    time: iso(s.time),
  };
}

function llmCallJson(c: LlmCallRow) {
  return {
    id: c.id,
    project_id: c.projectId,
    session_id: c.sessionId,
    run_id: c.runId,
    agent_id: c.agentId,
    agent_version_id: c.agentVersionId,
    event_id: c.eventId,
    time: iso(c.time),
    operation: c.operation,
    provider: c.provider,
    model: c.model,
    response_model: c.responseModel,
    input_tokens: c.inputTokens,
    output_tokens: c.outputTokens,
    cached_input_tokens: c.cachedInputTokens,
    duration_ms: c.durationMs,
    cost_usd: c.costUsd,
    cost_source: c.costSource,
    finish_reasons: c.finishReasons,
    error_type: c.errorType,
    error_message: c.errorMessage,
  };
}

/**
 * The `guardrail_evaluations` row of a record (contracts `evaluationRow`), column by column: a field
 * the table does not have is not stored, an absent `provenance` is SQL NULL.
 */
function evaluationJson(record: EvaluationRecord) {
  const v = evaluationRow(record);
  return {
    id: v.id,
    project_id: v.projectId,
    agent_id: v.agentId,
    agent_version_id: v.agentVersionId,
    session_id: v.sessionId,
    run_id: v.runId,
    tool_call_id: v.toolCallId,
    tool_name: v.toolName,
    mode: v.mode,
    policy_decision: v.policyDecision,
    effective_decision: v.effectiveDecision,
    matched_guardrails: v.matchedGuardrails,
    would_block: v.wouldBlock,
    would_require_approval: v.wouldRequireApproval,
    dry_run: v.dryRun,
    approval_id: v.approvalId,
    input: v.input,
    provenance: v.provenance ?? null,
    evaluated_at: iso(v.evaluatedAt),
  };
}

/**
 * Stores the projections of a batch in one statement on `client` (inside the caller's transaction):
 * `sessions` and `runs` upserted from their aggregates, `scores`, `llm_calls` and
 * `guardrail_evaluations` inserted at most once each. Returns the counts of rows actually inserted
 * and the sessions of the inserted non-dry-run evaluations. Throws the driver's error (a foreign-key
 * violation, SQLSTATE 23503, for an unknown session, agent or version of the project; a
 * `RangeError` before any SQL for an evaluation whose `evaluatedAt` is not a date).
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
    JSON.stringify(rows.sessions.map(sessionJson)),
    JSON.stringify(rows.runs.map(runJson)),
    JSON.stringify(rows.scores.map(scoreJson)),
    JSON.stringify(rows.llmCalls.map(llmCallJson)),
    JSON.stringify(rows.evaluations.map(evaluationJson)),
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
