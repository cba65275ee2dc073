-- Trigram operators for the sessions text search (ILIKE %q%). pg_trgm is a trusted contrib extension
-- (PostgreSQL >= 13: a database owner may create it). PGlite loads it in libs/db/src/embedded.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "approvals_session_id_status_idx" ON "approvals"("session_id", "status");

-- CreateIndex
CREATE INDEX "events_project_id_agent_id_time_idx" ON "events"("project_id", "agent_id", "time" DESC);

-- CreateIndex
CREATE INDEX "sessions_project_id_agent_version_id_started_at_idx" ON "sessions"("project_id", "agent_version_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "sessions_input_summary_trgm_idx" ON "sessions" USING GIN ("input_summary" gin_trgm_ops);
