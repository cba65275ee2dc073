import { INT4_MAX } from '@agent-warden/contracts';
import type { PrismaClient } from './client';

/** First key of the advisory locks that serialise sequence reservations of one session. */
const SEQUENCE_LOCK_NAMESPACE = 7271;

/** A run of `size` sequence numbers wanted for one session, named by `blockKey` (a UUID). */
export interface SequenceBlockRequest {
  sessionId: string;
  blockKey: string;
  size: number;
}

/** The session's sequence numbers ran past 2,147,483,647 (the int4 column). */
export class SequenceExhaustedError extends Error {
  readonly code = 'sequence_exhausted';
}

/**
 * Reserves `size` consecutive `sequence` numbers per requested block, for events the gateway makes
 * from OTLP spans (docs/decisions.md "OTLP spans get deterministic ids and per-session sequence
 * blocks"). A block already reserved under the same `(project, session, blockKey)` with the same
 * size is returned again (an exporter's retry of the same request gets the same numbers); else
 * the block starts right after the highest number reserved for the session or stored for it
 * (`sessions.max_sequence`, which covers events sent through `/v1/events`). One transaction;
 * sessions are locked in id order (`pg_advisory_xact_lock(7271, hashtext(project:session))`), so
 * concurrent requests never get overlapping blocks.
 * @returns the first number of each block, by `blockKey`.
 * @throws SequenceExhaustedError past 2,147,483,647; database errors as they come.
 */
export async function reserveSequenceBlocks(
  db: PrismaClient,
  projectId: string,
  blocks: SequenceBlockRequest[],
): Promise<Map<string, number>> {
  const sorted = [...blocks].sort((x, y) =>
    x.sessionId === y.sessionId ? (x.blockKey < y.blockKey ? -1 : 1) : x.sessionId < y.sessionId ? -1 : 1,
  );
  return db.$transaction(
    async (tx) => {
      const out = new Map<string, number>();
      let locked = '';
      for (const b of sorted) {
        if (b.sessionId !== locked) {
          await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${SEQUENCE_LOCK_NAMESPACE}::int4, hashtext(${`${projectId}:${b.sessionId}`}::text))`;
          locked = b.sessionId;
        }
        const existing = await tx.$queryRaw<{ first_sequence: number; size: number }[]>`
          SELECT first_sequence, size FROM otlp_sequence_blocks
          WHERE project_id = ${projectId}::uuid AND session_id = ${b.sessionId}::uuid AND block_key = ${b.blockKey}::uuid`;
        if (existing[0] && existing[0].size === b.size) {
          out.set(b.blockKey, existing[0].first_sequence);
          continue;
        }
        const [top] = await tx.$queryRaw<{ top: number }[]>`
          SELECT GREATEST(
            COALESCE((SELECT MAX(first_sequence + size - 1) FROM otlp_sequence_blocks
                      WHERE project_id = ${projectId}::uuid AND session_id = ${b.sessionId}::uuid), 0),
            COALESCE((SELECT max_sequence FROM sessions
                      WHERE project_id = ${projectId}::uuid AND id = ${b.sessionId}::uuid), 0))::int AS top`;
        const first = (top?.top ?? 0) + 1;
        if (first + b.size - 1 > INT4_MAX)
          throw new SequenceExhaustedError(`session ${b.sessionId} has no sequence numbers left`);
        await tx.$executeRaw`
          INSERT INTO otlp_sequence_blocks (project_id, session_id, block_key, first_sequence, size)
          VALUES (${projectId}::uuid, ${b.sessionId}::uuid, ${b.blockKey}::uuid, ${first}::int, ${b.size}::int)
          ON CONFLICT (project_id, session_id, block_key)
          DO UPDATE SET first_sequence = EXCLUDED.first_sequence, size = EXCLUDED.size`;
        out.set(b.blockKey, first);
      }
      return out;
    },
    { maxWait: 10_000, timeout: 15_000 },
  );
}
