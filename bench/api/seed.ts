import { Client } from 'pg';

/** Sizes of the data set `npm run bench:api` seeds. */
export interface SeedOptions {
  sessions: number;
  agents: number;
  versionsPerAgent: number;
  /** Share of sessions with a guardrail evaluation (one `guardrail_evaluations` row + one client event each). */
  evaluatedShare: number;
  approvals: number;
  pendingApprovals: number;
  /** Sessions start uniformly over this many days before now. */
  days: number;
}

/** What was seeded, with ids the scenarios query by. */
export interface Seeded {
  projectId: string;
  agentIds: string[];
  versionIds: string[];
  counts: { sessions: number; events: number; evaluations: number; approvals: number };
  ms: number;
}

const SUMMARY_VERBS = [
  'Refund',
  'Book',
  'Cancel',
  'Summarise',
  'Translate',
  'Deploy',
  'Fix',
  'Send',
  'Review',
  'Plan',
];
const SUMMARY_OBJECTS = [
  'order',
  'flight',
  'invoice',
  'ticket',
  'pull request',
  'report',
  'payment',
  'meeting',
  'database',
  'email',
];

/**
 * Seeds one project with `agents × versionsPerAgent` versions and `sessions` sessions (started
 * uniformly over the last `days` days; statuses 70 % completed, 15 % failed, 5 % cancelled, 10 %
 * active; input summaries like "Refund order 4711 for customer 123"), each with an
 * `agent.session.started` and an `agent.tool.started` event; `evaluatedShare` of them also get a
 * guardrail evaluation (70 % allow, 15 % warn, 10 % block, 5 % require_approval; 80 % enforce
 * mode; 1–2 of 8 policies matched) and the client's `agent.guardrail.evaluated` event (outcome
 * `blocked` for enforce-mode blocks); `approvals` approvals, `pendingApprovals` of them pending.
 * Plain SQL (`generate_series`) straight into the tables the projector writes, then `ANALYZE`.
 */
export async function seedApiData(databaseUrl: string, projectId: string, o: SeedOptions): Promise<Seeded> {
  const started = Date.now();
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const q = (sql: string, params: unknown[] = []) => pg.query(sql, params);
    await q(`SET synchronous_commit = off`);
    await q(
      `INSERT INTO agents (id, project_id, key, name, last_seen_at)
       SELECT gen_random_uuid(), $1, 'agent-' || a, 'Agent ' || a, now() FROM generate_series(1, $2) a`,
      [projectId, o.agents],
    );
    await q(
      `INSERT INTO agent_versions (id, project_id, agent_id, version, metadata, capabilities)
       SELECT gen_random_uuid(), $1, ag.id, 'v' || v, jsonb_build_object('model', 'model-' || v),
              jsonb_build_array(jsonb_build_object('name', 'tool-' || v, 'kind', 'tool'))
         FROM agents ag CROSS JOIN generate_series(1, $2) v WHERE ag.project_id = $1`,
      [projectId, o.versionsPerAgent],
    );
    // Versions numbered 0..n-1 so that session i picks version i % n.
    await q(`CREATE TEMP TABLE vnum AS
      SELECT (row_number() OVER (ORDER BY id)) - 1 AS n, id, agent_id FROM agent_versions WHERE project_id = '${projectId}'`);
    const versions = (await q(`SELECT count(*)::int AS n FROM vnum`)).rows[0].n as number;
    await q(
      `INSERT INTO sessions (id, project_id, agent_id, agent_version_id, status, input_summary, started_at,
                             ended_at, last_event_at, event_count, max_sequence)
       SELECT s.id, $1, v.agent_id, v.id, s.status, s.summary, s.t,
              CASE WHEN s.status = 'active' THEN NULL ELSE s.t + interval '40 seconds' END,
              s.t + interval '40 seconds', 2, 2
         FROM (
           SELECT gen_random_uuid() AS id, i,
                  now() - (random() * $3 * interval '1 day') AS t,
                  CASE WHEN r < 0.70 THEN 'completed' WHEN r < 0.85 THEN 'failed'
                       WHEN r < 0.90 THEN 'cancelled' ELSE 'active' END AS status,
                  ($4::text[])[1 + (i % 10)] || ' ' || ($5::text[])[1 + ((i / 10) % 10)] || ' ' || (i * 7919 % 100000)
                    || ' for customer ' || (i % 997) AS summary
             FROM (SELECT i, random() AS r FROM generate_series(1, $2) i) x
         ) s JOIN vnum v ON v.n = s.i % ${versions}`,
      [projectId, o.sessions, o.days, SUMMARY_VERBS, SUMMARY_OBJECTS],
    );
    await q(
      `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
       SELECT gen_random_uuid(), project_id, id, agent_id, agent_version_id, 'agent.session.started', started_at, 1,
              jsonb_build_object('inputSummary', input_summary)
         FROM sessions WHERE project_id = $1
       UNION ALL
       SELECT gen_random_uuid(), project_id, id, agent_id, agent_version_id, 'agent.tool.started',
              started_at + interval '10 seconds', 2, jsonb_build_object('toolName', 'search', 'arguments', '{}'::jsonb)
         FROM sessions WHERE project_id = $1`,
      [projectId],
    );
    // Evaluations for a share of the sessions, and the client's event for each.
    await q(
      `CREATE TEMP TABLE ev AS
       SELECT gen_random_uuid() AS id, s.id AS session_id, s.agent_id, s.agent_version_id,
              s.started_at + interval '20 seconds' AS t,
              CASE WHEN r < 0.70 THEN 'allow' WHEN r < 0.85 THEN 'warn' WHEN r < 0.95 THEN 'block'
                   ELSE 'require_approval' END AS decision,
              CASE WHEN random() < 0.8 THEN 'enforce' ELSE 'monitor' END AS mode,
              (abs(hashtext(s.id::text)) % 8) AS p
         FROM (SELECT *, random() AS r FROM sessions WHERE project_id = $1) s
        WHERE random() < $2`,
      [projectId, o.evaluatedShare],
    );
    await q(
      `INSERT INTO guardrail_evaluations (id, project_id, agent_id, agent_version_id, session_id, tool_name, mode,
              policy_decision, effective_decision, matched_guardrails, would_block, would_require_approval, input,
              evaluated_at)
       SELECT id, $1, agent_id, agent_version_id, session_id, 'search', mode, decision,
              CASE WHEN mode = 'enforce' OR decision = 'allow' THEN decision ELSE 'warn' END,
              CASE WHEN decision = 'allow' THEN '[]'::jsonb ELSE jsonb_build_array(
                jsonb_build_object('policyId', 'policy-' || p, 'name', 'Policy ' || p, 'version', 1,
                                   'decision', decision, 'reason', 'matched'),
                jsonb_build_object('policyId', 'policy-' || ((p + 1) % 8), 'name', 'Policy ' || ((p + 1) % 8),
                                   'version', 1, 'decision', 'warn', 'reason', 'matched')) END,
              decision = 'block', decision = 'require_approval', '{}'::jsonb, t
         FROM ev`,
      [projectId],
    );
    await q(
      `INSERT INTO events (id, project_id, session_id, agent_id, agent_version_id, type, time, sequence, data)
       SELECT gen_random_uuid(), $1, session_id, agent_id, agent_version_id, 'agent.guardrail.evaluated', t, 3,
              jsonb_build_object('evaluationId', id, 'mode', mode, 'policyDecision', decision,
                'effectiveDecision', CASE WHEN mode = 'enforce' OR decision = 'allow' THEN decision ELSE 'warn' END,
                'matchedGuardrails', '[]'::jsonb, 'wouldBlock', decision = 'block',
                'wouldRequireApproval', decision = 'require_approval',
                'outcome', CASE WHEN mode = 'enforce' AND decision = 'block' THEN 'blocked' ELSE 'ran' END)
         FROM ev`,
      [projectId],
    );
    await q(
      `INSERT INTO approvals (id, project_id, evaluation_id, agent_id, session_id, tool_name, status, request,
                              created_at, expires_at)
       SELECT gen_random_uuid(), $1, id, agent_id, session_id, 'search',
              CASE WHEN row_number() OVER (ORDER BY t DESC) <= $3 THEN 'pending' ELSE 'approved' END,
              '{}'::jsonb, t, t + interval '5 minutes'
         FROM (SELECT * FROM ev WHERE decision = 'require_approval' ORDER BY t DESC LIMIT $2) a`,
      [projectId, o.approvals, o.pendingApprovals],
    );
    await q(`ANALYZE`);
    const count = async (table: string) =>
      Number((await q(`SELECT count(*) AS n FROM ${table} WHERE project_id = $1`, [projectId])).rows[0].n);
    const agentIds = (
      await q(`SELECT id FROM agents WHERE project_id = $1 ORDER BY key`, [projectId])
    ).rows.map((r: { id: string }) => r.id);
    const versionIds = (await q(`SELECT id FROM vnum ORDER BY n`)).rows.map((r: { id: string }) => r.id);
    return {
      projectId,
      agentIds,
      versionIds,
      counts: {
        sessions: await count('sessions'),
        events: await count('events'),
        evaluations: await count('guardrail_evaluations'),
        approvals: await count('approvals'),
      },
      ms: Date.now() - started,
    };
  } finally {
    await pg.end();
  }
}
