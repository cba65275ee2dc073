-- Scores (docs/architecture.md#scores): the outcome of a session or of one of its runs, one row per
-- (project_id, id), written by the projector from agent.score.recorded events and by the api's
-- scores route with the same ON CONFLICT DO NOTHING statement. Project-scoped like sessions and
-- events (20261124100000_project_scoped_ids); run_id has no foreign key (a run may be stored later).

-- CreateTable
CREATE TABLE "scores" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "run_id" UUID,
    "agent_id" UUID NOT NULL,
    "agent_version_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "data_type" TEXT NOT NULL,
    "numeric_value" DOUBLE PRECISION,
    "string_value" TEXT,
    "source" TEXT NOT NULL,
    "comment" TEXT,
    "author" TEXT NOT NULL,
    "event_id" UUID,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scores_pkey" PRIMARY KEY ("project_id","id")
);

-- CreateIndex
CREATE INDEX "scores_project_id_session_id_time_idx" ON "scores"("project_id", "session_id", "time");

-- CreateIndex
CREATE INDEX "scores_project_id_agent_version_id_name_idx" ON "scores"("project_id", "agent_version_id", "name");

-- AddForeignKey
ALTER TABLE "scores" ADD CONSTRAINT "scores_project_id_session_id_fkey" FOREIGN KEY ("project_id", "session_id") REFERENCES "sessions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "scores" ADD CONSTRAINT "scores_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "scores" ADD CONSTRAINT "scores_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;
