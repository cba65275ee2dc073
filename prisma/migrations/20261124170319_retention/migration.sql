-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "retention_days" INTEGER,
ADD COLUMN     "retention_last_run" JSONB;

-- CreateIndex
CREATE INDEX "sessions_project_id_last_event_at_idx" ON "sessions"("project_id", "last_event_at");
