-- Ids are owned by a project (docs/decisions.md "Ids are owned by a project").
-- Client-chosen ids (sessions, runs, events) get primary keys (project_id, id): another project
-- naming the same id gets its own row and can never update this one. Every reference to a
-- server-issued id (agent, agent version, policy, approval, intelligence) becomes a composite
-- foreign key (project_id, <x>_id), so a row can only point inside its own project.
--
-- Works on a database with data: the keys only widen, and each foreign key is added NOT VALID
-- (enforced at once for every new or changed row) and then validated against the existing rows.
-- Rows stored before this migration through the hole it closes (e.g. an event naming another
-- project's agent version) make that validation fail: the constraint then stays NOT VALID (still
-- enforced for new rows) and a WARNING names it: repair the rows it finds and run
-- `ALTER TABLE … VALIDATE CONSTRAINT …`.

-- DropForeignKey
ALTER TABLE "agent_versions" DROP CONSTRAINT "agent_versions_agent_id_fkey";

-- DropForeignKey
ALTER TABLE "policy_versions" DROP CONSTRAINT "policy_versions_policy_id_fkey";

-- DropForeignKey
ALTER TABLE "recommendations" DROP CONSTRAINT "recommendations_intelligence_id_fkey";

-- DropIndex
DROP INDEX "session_intelligence_session_id_version_key";

-- AlterTable
ALTER TABLE "events" DROP CONSTRAINT "events_pkey",
ADD CONSTRAINT "events_pkey" PRIMARY KEY ("project_id", "id");

-- AlterTable
ALTER TABLE "runs" DROP CONSTRAINT "runs_pkey",
ADD CONSTRAINT "runs_pkey" PRIMARY KEY ("project_id", "id");

-- AlterTable
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_pkey",
ADD CONSTRAINT "sessions_pkey" PRIMARY KEY ("project_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_versions_project_id_id_key" ON "agent_versions"("project_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agents_project_id_id_key" ON "agents"("project_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_project_id_id_key" ON "approvals"("project_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "policies_project_id_id_key" ON "policies"("project_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "session_intelligence_project_id_session_id_version_key" ON "session_intelligence"("project_id", "session_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "session_intelligence_project_id_id_key" ON "session_intelligence"("project_id", "id");

-- AddForeignKey
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_project_id_session_id_fkey" FOREIGN KEY ("project_id", "session_id") REFERENCES "sessions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "guardrail_evaluations" ADD CONSTRAINT "guardrail_evaluations_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "guardrail_evaluations" ADD CONSTRAINT "guardrail_evaluations_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_project_id_policy_id_fkey" FOREIGN KEY ("project_id", "policy_id") REFERENCES "policies"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_project_id_policy_id_fkey" FOREIGN KEY ("project_id", "policy_id") REFERENCES "policies"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "approval_transitions" ADD CONSTRAINT "approval_transitions_project_id_approval_id_fkey" FOREIGN KEY ("project_id", "approval_id") REFERENCES "approvals"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "session_intelligence" ADD CONSTRAINT "session_intelligence_project_id_session_id_fkey" FOREIGN KEY ("project_id", "session_id") REFERENCES "sessions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "recommendations" ADD CONSTRAINT "recommendations_project_id_intelligence_id_fkey" FOREIGN KEY ("project_id", "intelligence_id") REFERENCES "session_intelligence"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- AddForeignKey
ALTER TABLE "recommendations" ADD CONSTRAINT "recommendations_project_id_policy_id_fkey" FOREIGN KEY ("project_id", "policy_id") REFERENCES "policies"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT NOT VALID;

-- Validate what the existing rows allow (see the header).
DO $$
DECLARE
  c record;
BEGIN
  FOR c IN
    SELECT conrelid::regclass AS tbl, conname
    FROM pg_constraint
    WHERE contype = 'f' AND NOT convalidated AND conname IN ('agent_versions_project_id_agent_id_fkey',
      'sessions_project_id_agent_id_fkey',
      'sessions_project_id_agent_version_id_fkey',
      'runs_project_id_session_id_fkey',
      'runs_project_id_agent_id_fkey',
      'runs_project_id_agent_version_id_fkey',
      'events_project_id_agent_id_fkey',
      'events_project_id_agent_version_id_fkey',
      'guardrail_evaluations_project_id_agent_id_fkey',
      'guardrail_evaluations_project_id_agent_version_id_fkey',
      'approvals_project_id_agent_id_fkey',
      'approvals_project_id_policy_id_fkey',
      'policy_versions_project_id_policy_id_fkey',
      'approval_transitions_project_id_approval_id_fkey',
      'session_intelligence_project_id_session_id_fkey',
      'recommendations_project_id_intelligence_id_fkey',
      'recommendations_project_id_policy_id_fkey')
  LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %s VALIDATE CONSTRAINT %I', c.tbl, c.conname);
    EXCEPTION WHEN foreign_key_violation THEN
      RAISE WARNING 'project_scoped_ids: % on % stays NOT VALID: existing rows point outside their project', c.conname, c.tbl;
    END;
  END LOOP;
END $$;
