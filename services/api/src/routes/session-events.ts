import type { RequestHandler } from 'express';
import { SessionEventsQuery, Uuid } from '@agent-warden/contracts';
import { sessionEventsAfter, sessionExists, type PrismaClient } from '@agent-warden/db';
import { notFound, parseOr400, principalOf, validationError } from '@agent-warden/http';
import { eventView } from '../views';

/** Opaque cursor over a session's events in `(sequence, id)` order: base64url of `<sequence>|<id>`. */
export function encodeSequenceCursor(sequence: number, id: string): string {
  return Buffer.from(`${sequence}|${id}`, 'utf8').toString('base64url');
}

function decodeSequenceCursor(cursor: string): { sequence: number; id: string } {
  const [seq, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const sequence = Number(seq);
  if (!id || !Uuid.safeParse(id).success || !Number.isInteger(sequence))
    throw validationError('malformed cursor', [{ path: 'cursor', message: 'not a cursor from this API' }]);
  return { sequence, id };
}

/**
 * One page of a session's events in replay order (`sequence`, then `id`), after `cursor`: the
 * first `limit` events and the cursor of the last one when more follow (null at the end).
 */
export async function sessionEventsPage(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  limit: number,
  cursor?: string,
): Promise<{ items: ReturnType<typeof eventView>[]; nextCursor: string | null }> {
  const after = cursor ? decodeSequenceCursor(cursor) : undefined;
  const rows = await sessionEventsAfter(db, projectId, sessionId, limit + 1, after);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(eventView),
    nextCursor: rows.length > limit && last ? encodeSequenceCursor(last.sequence, last.id) : null,
  };
}

/**
 * `GET /v1/sessions/:sessionId/events?limit=&cursor=` (read scope): a session's events in replay
 * order, keyset paged (`limit` 1–2000, default 500), so a session of 10,000 events loads in pages
 * the replay page shows as they arrive. 404 when the session is not in the caller's project; 400
 * on an invalid limit or cursor.
 */
export function listSessionEvents(db: PrismaClient): RequestHandler {
  return async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const q = parseOr400(SessionEventsQuery, req.query, 'query');
    if (!(await sessionExists(db, projectId, id))) throw notFound('session');
    res.json(await sessionEventsPage(db, projectId, id, q.limit, q.cursor));
  };
}
