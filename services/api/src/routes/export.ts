import { once } from 'node:events';
import { Router, type RequestHandler, type Response } from 'express';
import { SessionsExportQuery, Uuid, type ExportLine } from '@agent-warden/contracts';
import {
  findSession,
  searchSessions,
  sessionEventsAfter,
  type PrismaClient,
  type Session,
} from '@agent-warden/db';
import { notFound, parseOr400, principalOf } from '@agent-warden/http';
import { eventView, sessionView } from '../views';

/** Sessions read per query of an export. */
const SESSION_PAGE = 100;
/** Events read per query of an export. */
const EVENT_PAGE = 1000;

/** NDJSON media type (https://github.com/ndjson/ndjson-spec). */
const NDJSON = 'application/x-ndjson';

/**
 * Writes one NDJSON line, waiting for the socket to drain when its buffer is full, so that memory
 * stays at one page whatever the export's size. Returns false when the client went away.
 */
async function writeLine(res: Response, line: ExportLine): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(JSON.stringify(line) + '\n')) {
    await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  return !res.destroyed;
}

/** Streams a session line and its events in replay order, page by page (keyset on sequence, id). */
async function writeSession(db: PrismaClient, res: Response, s: Session): Promise<boolean> {
  if (!(await writeLine(res, { kind: 'session', session: sessionView(s) }))) return false;
  let after: { sequence: number; id: string } | undefined;
  for (;;) {
    const rows = await sessionEventsAfter(db, s.projectId, s.id, EVENT_PAGE, after);
    for (const e of rows) if (!(await writeLine(res, { kind: 'event', event: eventView(e) }))) return false;
    if (rows.length < EVENT_PAGE) return true;
    const last = rows[rows.length - 1]!;
    after = { sequence: last.sequence, id: last.id };
  }
}

/**
 * Runs a streaming body: once the first bytes may have left, an error can only cut the stream
 * (destroying the socket), never become a problem+json.
 */
async function streaming(res: Response, body: () => Promise<void>): Promise<void> {
  res.flushHeaders();
  try {
    await body();
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * Export as NDJSON (`application/x-ndjson`, contracts `ExportLine`; read capability):
 * - `GET /v1/sessions/export?…`: every session matching the sessions list's filters and time window
 *   (contracts `SessionsExportQuery`), newest first, each as a `session` line followed by its
 *   `event` lines in replay order;
 * - `GET /v1/sessions/{sessionId}/export`: one session the same way (404 when unknown).
 * Streamed with keyset cursors ({@link SESSION_PAGE} sessions, {@link EVENT_PAGE} events a query)
 * and the socket's backpressure, so memory stays flat for any export. Errors after the first line
 * can no longer be a problem+json: the stream is cut (the client sees a truncated body).
 * Mount before the read router: `/v1/sessions/export` must not be taken for a session id.
 */
export function exportRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const { db } = deps;
  const r = Router();

  r.get('/v1/sessions/export', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(SessionsExportQuery, req.query, 'query');
    res.status(200).type(NDJSON);
    res.setHeader('Content-Disposition', 'attachment; filename="sessions.ndjson"');
    await streaming(res, async () => {
      let after: { startedAt: Date; id: string } | undefined;
      for (;;) {
        const page = await searchSessions(
          db,
          projectId,
          {
            agentId: q.agentId,
            agentVersionId: q.agentVersionId,
            from: q.from ? new Date(q.from) : undefined,
            to: q.to ? new Date(q.to) : undefined,
            status: q.status,
            hasBlocks: q.hasBlocks,
            hasPendingApprovals: q.hasPendingApprovals,
            q: q.q,
          },
          SESSION_PAGE,
          after,
        );
        for (const s of page) if (!(await writeSession(db, res, s))) return;
        if (page.length < SESSION_PAGE) break;
        const last = page[page.length - 1]!;
        after = { startedAt: last.startedAt, id: last.id };
      }
      res.end();
    });
  });

  r.get('/v1/sessions/:sessionId/export', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const id = parseOr400(Uuid, req.params.sessionId, 'sessionId');
    const s = await findSession(db, projectId, id);
    if (!s) throw notFound('session');
    res.status(200).type(NDJSON);
    res.setHeader('Content-Disposition', `attachment; filename="session-${id}.ndjson"`);
    await streaming(res, async () => {
      if (await writeSession(db, res, s)) res.end();
    });
  });
  return r;
}
