-- Webhook notifications (docs/operations.md#notifications): per-project subscriptions and their
-- delivery log. A delivery row is written by a trigger in the very transaction that records what
-- caused it (an approval transition, a blocking guardrail evaluation), so none is lost across
-- restarts and whichever code writes those rows (gateway, api, projector, a COPY) needs no change
-- (docs/decisions.md "Webhook deliveries are written by triggers and worked off from the table").

-- CreateTable
CREATE TABLE "webhook_subscriptions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "event_types" TEXT[],
    "secret" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'json',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "subscription_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "duration_ms" INTEGER,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_subscriptions_project_id_idx" ON "webhook_subscriptions"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_subscriptions_project_id_id_key" ON "webhook_subscriptions"("project_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_created_at_idx" ON "webhook_deliveries"("created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_project_id_subscription_id_created_at_idx" ON "webhook_deliveries"("project_id", "subscription_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_subscription_id_event_id_key" ON "webhook_deliveries"("subscription_id", "event_id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_project_id_subscription_id_fkey" FOREIGN KEY ("project_id", "subscription_id") REFERENCES "webhook_subscriptions"("project_id", "id") ON DELETE CASCADE ON UPDATE RESTRICT;

-- Trigger functions: one delivery per enabled subscription of the project that wants the event;
-- ON CONFLICT keeps a re-inserted source row from notifying twice.
CREATE FUNCTION "warden_webhook_enqueue"(p_project UUID, p_event UUID, p_type TEXT) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "webhook_deliveries" ("id", "project_id", "subscription_id", "event_id", "event_type")
  SELECT gen_random_uuid(), s."project_id", s."id", p_event, p_type
    FROM "webhook_subscriptions" s
   WHERE s."project_id" = p_project AND s."enabled" AND p_type = ANY (s."event_types")
  ON CONFLICT ("subscription_id", "event_id") DO NOTHING;
END $$;

CREATE FUNCTION "warden_webhook_on_approval_transition"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "warden_webhook_enqueue"(NEW."project_id", NEW."id",
    CASE WHEN NEW."from_status" IS NULL THEN 'approval.requested'
         WHEN NEW."actor" = 'system:timeout' THEN 'approval.expired'
         ELSE 'approval.decided' END);
  RETURN NULL;
END $$;

CREATE FUNCTION "warden_webhook_on_block"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "warden_webhook_enqueue"(NEW."project_id", NEW."id", 'guard.blocked');
  RETURN NULL;
END $$;

CREATE TRIGGER "approval_transitions_webhooks" AFTER INSERT ON "approval_transitions"
  FOR EACH ROW EXECUTE FUNCTION "warden_webhook_on_approval_transition"();

-- Only blocks reach the function: every other evaluation costs the WHEN test alone.
CREATE TRIGGER "guardrail_evaluations_webhooks" AFTER INSERT ON "guardrail_evaluations"
  FOR EACH ROW WHEN (NEW."effective_decision" = 'block' AND NOT NEW."dry_run")
  EXECUTE FUNCTION "warden_webhook_on_block"();
