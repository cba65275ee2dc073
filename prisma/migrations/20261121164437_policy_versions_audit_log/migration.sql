-- CreateTable
CREATE TABLE "policy_versions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "policy_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "enabled" BOOLEAN NOT NULL,
    "decision" TEXT NOT NULL,
    "match" JSONB NOT NULL,
    "approval" JSONB,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "actor" TEXT NOT NULL,
    "actor_key_id" UUID,
    "action" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "entity_id" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "policy_versions_project_id_policy_id_idx" ON "policy_versions"("project_id", "policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "policy_versions_policy_id_version_key" ON "policy_versions"("policy_id", "version");

-- CreateIndex
CREATE INDEX "audit_log_project_id_at_idx" ON "audit_log"("project_id", "at" DESC);

-- CreateIndex
CREATE INDEX "audit_log_project_id_entity_type_entity_id_at_idx" ON "audit_log"("project_id", "entity_type", "entity_id", "at" DESC);

-- CreateIndex
CREATE INDEX "policies_project_id_name_idx" ON "policies"("project_id", "name");

-- AddForeignKey
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Backfill: the current version of every existing policy becomes its first recorded version.
INSERT INTO "policy_versions" ("id", "project_id", "policy_id", "version", "name", "description", "enabled", "decision", "match", "approval", "created_by", "created_at")
SELECT gen_random_uuid(), "project_id", "id", "version", "name", "description", "enabled", "decision", "match", "approval", 'system:migration', "updated_at"
FROM "policies";
