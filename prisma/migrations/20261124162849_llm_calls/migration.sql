-- LLM calls (docs/architecture.md#llm-calls): one row per (project_id, id), id = the event's llmCallId
-- or the event id, written by the projector from freshly inserted agent.llm.called events with
-- ON CONFLICT DO NOTHING, priced at projection time (cost_source: client | price_table | NULL).
-- Project-scoped like scores (20261124135212_scores); run_id has no foreign key.

-- CreateTable
CREATE TABLE "llm_calls" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "run_id" UUID,
    "agent_id" UUID NOT NULL,
    "agent_version_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "provider" TEXT,
    "model" TEXT NOT NULL,
    "response_model" TEXT,
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "cached_input_tokens" INTEGER,
    "duration_ms" DOUBLE PRECISION,
    "cost_usd" DOUBLE PRECISION,
    "cost_source" TEXT,
    "finish_reasons" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "error_type" TEXT,
    "error_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "llm_calls_pkey" PRIMARY KEY ("project_id","id")
);

-- CreateIndex
CREATE INDEX "llm_calls_project_id_session_id_time_idx" ON "llm_calls"("project_id", "session_id", "time");

-- CreateIndex
CREATE INDEX "llm_calls_project_id_agent_id_time_idx" ON "llm_calls"("project_id", "agent_id", "time");

-- CreateIndex
CREATE INDEX "llm_calls_project_id_time_idx" ON "llm_calls"("project_id", "time");

-- AddForeignKey
ALTER TABLE "llm_calls" ADD CONSTRAINT "llm_calls_project_id_session_id_fkey" FOREIGN KEY ("project_id", "session_id") REFERENCES "sessions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "llm_calls" ADD CONSTRAINT "llm_calls_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "llm_calls" ADD CONSTRAINT "llm_calls_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;
