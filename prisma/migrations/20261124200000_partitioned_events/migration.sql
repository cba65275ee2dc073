-- Partitioned events (docs/decisions.md "Events partitioned by week").
-- `events` becomes a table partitioned by RANGE ("time") into weeks (Monday 00:00 UTC to the next
-- Monday, named events_pYYYYMMDD after the Monday), plus events_default for any other time (a
-- client clock far in the past or future is stored, never refused). The primary key must hold the
-- partition key: (project_id, id, time); a re-delivered event has the same time, so
-- `ON CONFLICT (project_id, id, time)` still stores it once.
--
-- Works on a database with data, in this migration's one transaction: the old table is renamed,
-- a week partition is created for every week within 5 years before / 1 year after now that holds
-- rows (and for this week and the 4 next ones, as the service keeps ahead: ensureEventPartitions
-- in libs/db), rows are copied over (others land in events_default), the old table is dropped and
-- the indexes and foreign keys are created on the new one. The table is locked while this runs
-- (plan minutes per ten million rows). Prisma cannot express partitioning: schema.prisma keeps the
-- plain model with the new key, and `npm run db:migration:check` accepts exactly the partitions'
-- difference (libs/migrations/README.md "Partitioned tables").

-- The old table steps aside (index names are global to the schema).
ALTER TABLE "events" RENAME TO "events_unpartitioned";
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";
ALTER INDEX "events_session_id_time_sequence_idx" RENAME TO "events_unpartitioned_session_idx";
ALTER INDEX "events_project_id_type_time_idx" RENAME TO "events_unpartitioned_type_idx";
ALTER INDEX "events_project_id_time_idx" RENAME TO "events_unpartitioned_time_idx";
ALTER INDEX "events_project_id_agent_id_time_idx" RENAME TO "events_unpartitioned_agent_idx";

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

    CONSTRAINT "events_pkey" PRIMARY KEY ("project_id", "id", "time")
) PARTITION BY RANGE ("time");

CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;

DO $$
DECLARE
  w timestamptz;
BEGIN
  FOR w IN
    SELECT DISTINCT date_trunc('week', "time" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
      FROM "events_unpartitioned"
     WHERE "time" >= now() - interval '5 years' AND "time" < now() + interval '1 year'
    UNION
    SELECT (date_trunc('week', now() AT TIME ZONE 'UTC') + make_interval(weeks => g)) AT TIME ZONE 'UTC'
      FROM generate_series(0, 4) AS g
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "events" FOR VALUES FROM (%L) TO (%L)',
      'events_p' || to_char(w AT TIME ZONE 'UTC', 'YYYYMMDD'), w, w + interval '7 days');
  END LOOP;
END $$;

INSERT INTO "events" ("id", "project_id", "session_id", "run_id", "parent_id", "agent_id", "agent_version_id",
                      "type", "time", "sequence", "data", "received_at")
SELECT "id", "project_id", "session_id", "run_id", "parent_id", "agent_id", "agent_version_id",
       "type", "time", "sequence", "data", "received_at"
  FROM "events_unpartitioned";

DROP TABLE "events_unpartitioned";

-- CreateIndex
CREATE INDEX "events_session_id_time_sequence_idx" ON "events"("session_id", "time", "sequence");

-- CreateIndex
CREATE INDEX "events_project_id_type_time_idx" ON "events"("project_id", "type", "time" DESC);

-- CreateIndex
CREATE INDEX "events_project_id_time_idx" ON "events"("project_id", "time" DESC);

-- CreateIndex
CREATE INDEX "events_project_id_agent_id_time_idx" ON "events"("project_id", "agent_id", "time" DESC);

-- AddForeignKey (a partitioned table's foreign keys cannot be NOT VALID before PostgreSQL 18: rows
-- that the old NOT VALID constraint tolerated, events naming another project's agent or agent
-- version (20261124100000_project_scoped_ids), make this migration fail and roll back, the database
-- unchanged: repair those rows first.)
DO $$
BEGIN
  ALTER TABLE "events" ADD CONSTRAINT "events_project_id_agent_id_fkey" FOREIGN KEY ("project_id", "agent_id") REFERENCES "agents"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;
  ALTER TABLE "events" ADD CONSTRAINT "events_project_id_agent_version_id_fkey" FOREIGN KEY ("project_id", "agent_version_id") REFERENCES "agent_versions"("project_id", "id") ON DELETE RESTRICT ON UPDATE RESTRICT;
EXCEPTION WHEN foreign_key_violation THEN
  RAISE EXCEPTION 'partitioned_events: existing events point at another project''s agent or agent version (%)', SQLERRM
    USING HINT = 'Find them with SELECT e.project_id, e.id FROM events e JOIN agent_versions v ON v.id = e.agent_version_id WHERE v.project_id <> e.project_id; repair or delete them, then migrate again.';
END $$;
