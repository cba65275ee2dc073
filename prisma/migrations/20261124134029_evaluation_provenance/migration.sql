-- Data-flow guardrails (docs/provenance.md, docs/guardrails.md "Data-flow conditions"): each
-- evaluation and each approval keep the provenance their request carried (NULL for older rows and
-- requests without one), and a backtest finds the evaluation of a stored tool call by
-- (project_id, tool_call_id).

-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "provenance" JSONB;

-- AlterTable
ALTER TABLE "guardrail_evaluations" ADD COLUMN     "provenance" JSONB;

-- CreateIndex
CREATE INDEX "guardrail_evaluations_project_id_tool_call_id_idx" ON "guardrail_evaluations"("project_id", "tool_call_id");
