-- A person may belong to several projects with a role in each
-- (docs/decisions.md "Projects and members"): users.project_id / users.role move to
-- project_members, then the columns go.

-- CreateTable
CREATE TABLE "project_members" (
    "project_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_members_pkey" PRIMARY KEY ("project_id","user_id")
);

-- Move each existing person's project and role (users.project_id had no foreign key: a person of
-- a project that no longer exists keeps the account, without membership).
INSERT INTO "project_members" ("project_id", "user_id", "role", "created_at")
SELECT u."project_id", u."id", u."role", u."created_at"
FROM "users" u
JOIN "projects" p ON p."id" = u."project_id";

-- DropIndex
DROP INDEX "users_project_id_idx";

-- AlterTable
ALTER TABLE "users" DROP COLUMN "project_id",
DROP COLUMN "role";

-- CreateIndex
CREATE INDEX "project_members_user_id_idx" ON "project_members"("user_id");

-- AddForeignKey
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
