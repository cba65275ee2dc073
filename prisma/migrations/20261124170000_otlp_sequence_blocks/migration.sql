-- OTLP ingest (docs/otel.md): the sequence numbers reserved per session and export request, so a
-- retried request gets the same numbers
-- (docs/decisions.md "OTLP spans get deterministic ids and per-session sequence blocks").
-- Project-scoped, no foreign key (the session may be stored later).

-- CreateTable
CREATE TABLE "otlp_sequence_blocks" (
    "project_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "block_key" UUID NOT NULL,
    "first_sequence" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otlp_sequence_blocks_pkey" PRIMARY KEY ("project_id","session_id","block_key")
);
