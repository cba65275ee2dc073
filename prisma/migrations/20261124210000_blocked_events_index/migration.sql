-- The sessions list's "has blocks" filter reads the project's blocked guardrail events
-- (libs/db/src/session-search.ts); this partial index holds only those, so the filter no longer
-- scans every event of the project (docs/benchmarks.md "Scale").
CREATE INDEX "events_blocked_guard_idx" ON "events" ("project_id", "time" DESC) INCLUDE ("session_id")
  WHERE "type" = 'agent.guardrail.evaluated' AND ("data" ->> 'outcome') = 'blocked';
