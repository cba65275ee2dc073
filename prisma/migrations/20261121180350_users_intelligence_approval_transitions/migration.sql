-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approval_transitions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "approval_id" UUID NOT NULL,
    "session_id" UUID,
    "from_status" TEXT,
    "to_status" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "comment" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approval_transitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_intelligence" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'current',
    "reason" TEXT NOT NULL,
    "generator" TEXT NOT NULL,
    "summary" JSONB NOT NULL,
    "story" JSONB NOT NULL,
    "action_items" JSONB NOT NULL,
    "event_count" INTEGER NOT NULL,
    "last_event_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_intelligence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recommendations" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "intelligence_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "rationale" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "policy" JSONB NOT NULL,
    "evidence_event_ids" TEXT[],
    "status" TEXT NOT NULL DEFAULT 'open',
    "policy_id" UUID,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recommendations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "users_project_id_idx" ON "users"("project_id");

-- CreateIndex
CREATE INDEX "approval_transitions_approval_id_at_idx" ON "approval_transitions"("approval_id", "at");

-- CreateIndex
CREATE INDEX "approval_transitions_session_id_at_idx" ON "approval_transitions"("session_id", "at");

-- CreateIndex
CREATE INDEX "approval_transitions_project_id_at_idx" ON "approval_transitions"("project_id", "at" DESC);

-- CreateIndex
CREATE INDEX "session_intelligence_project_id_created_at_idx" ON "session_intelligence"("project_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "session_intelligence_session_id_version_key" ON "session_intelligence"("session_id", "version");

-- CreateIndex
CREATE INDEX "recommendations_project_id_status_created_at_idx" ON "recommendations"("project_id", "status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "recommendations_session_id_idx" ON "recommendations"("session_id");

-- AddForeignKey
ALTER TABLE "recommendations" ADD CONSTRAINT "recommendations_intelligence_id_fkey" FOREIGN KEY ("intelligence_id") REFERENCES "session_intelligence"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
