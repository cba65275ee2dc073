-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "default_decision" TEXT NOT NULL DEFAULT 'allow',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_versions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "capabilities" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "input_summary" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "last_event_at" TIMESTAMPTZ(3) NOT NULL,
    "event_count" INTEGER NOT NULL DEFAULT 0,
    "max_sequence" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version_id" UUID NOT NULL,
    "name" TEXT,
    "status" TEXT NOT NULL DEFAULT 'running',
    "input_summary" TEXT,
    "output_summary" TEXT,
    "error" TEXT,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "run_id" UUID,
    "parent_id" UUID,
    "agent_id" UUID NOT NULL,
    "agent_version_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL,
    "sequence" INTEGER NOT NULL,
    "data" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "guardrail_evaluations" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version_id" UUID,
    "session_id" UUID,
    "run_id" UUID,
    "tool_call_id" UUID,
    "tool_name" TEXT,
    "mode" TEXT NOT NULL,
    "policy_decision" TEXT NOT NULL,
    "effective_decision" TEXT NOT NULL,
    "matched_guardrails" JSONB NOT NULL,
    "would_block" BOOLEAN NOT NULL,
    "would_require_approval" BOOLEAN NOT NULL,
    "dry_run" BOOLEAN NOT NULL DEFAULT false,
    "approval_id" UUID,
    "input" JSONB NOT NULL,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "guardrail_evaluations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approvals" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "evaluation_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "session_id" UUID,
    "tool_name" TEXT,
    "policy_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "on_timeout" TEXT NOT NULL DEFAULT 'deny',
    "request" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    "comment" TEXT,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policies" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "decision" TEXT NOT NULL,
    "match" JSONB NOT NULL,
    "approval" JSONB,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "agents_project_id_key_key" ON "agents"("project_id", "key");

-- CreateIndex
CREATE INDEX "agent_versions_project_id_idx" ON "agent_versions"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_versions_agent_id_version_key" ON "agent_versions"("agent_id", "version");

-- CreateIndex
CREATE INDEX "sessions_project_id_started_at_idx" ON "sessions"("project_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "sessions_project_id_agent_id_started_at_idx" ON "sessions"("project_id", "agent_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "runs_session_id_started_at_idx" ON "runs"("session_id", "started_at");

-- CreateIndex
CREATE INDEX "events_session_id_time_sequence_idx" ON "events"("session_id", "time", "sequence");

-- CreateIndex
CREATE INDEX "events_project_id_type_time_idx" ON "events"("project_id", "type", "time" DESC);

-- CreateIndex
CREATE INDEX "events_project_id_time_idx" ON "events"("project_id", "time" DESC);

-- CreateIndex
CREATE INDEX "guardrail_evaluations_project_id_policy_decision_evaluated__idx" ON "guardrail_evaluations"("project_id", "policy_decision", "evaluated_at" DESC);

-- CreateIndex
CREATE INDEX "guardrail_evaluations_session_id_idx" ON "guardrail_evaluations"("session_id");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_evaluation_id_key" ON "approvals"("evaluation_id");

-- CreateIndex
CREATE INDEX "approvals_project_id_status_created_at_idx" ON "approvals"("project_id", "status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "policies_project_id_enabled_idx" ON "policies"("project_id", "enabled");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agents" ADD CONSTRAINT "agents_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
