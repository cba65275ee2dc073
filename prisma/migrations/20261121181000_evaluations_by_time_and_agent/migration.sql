-- CreateIndex
CREATE INDEX "guardrail_evaluations_project_id_evaluated_at_idx" ON "guardrail_evaluations"("project_id", "evaluated_at" DESC);

-- CreateIndex
CREATE INDEX "guardrail_evaluations_agent_id_agent_version_id_idx" ON "guardrail_evaluations"("agent_id", "agent_version_id");
