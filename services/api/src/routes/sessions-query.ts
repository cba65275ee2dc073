import type { RequestHandler } from 'express';
import { EventsExplorerQuery, SessionsListQuery, type SessionListItem } from '@agent-warden/contracts';
import {
  llmSessionTotals,
  searchEvents,
  searchSessions,
  zeroLlmTotals,
  type LlmTotals,
  type PrismaClient,
  type SessionSearchRow,
} from '@agent-warden/db';
import { parseOr400, principalOf } from '@agent-warden/http';
import { decodeCursor, toPage } from '../cursor';
import { eventView, sessionView } from '../views';

const optDate = (iso: string | undefined) => (iso ? new Date(iso) : undefined);

function sessionListItem(s: SessionSearchRow & { llm: LlmTotals }): SessionListItem {
  return { ...sessionView(s), blocks: s.blocks, pendingApprovals: s.pendingApprovals, llm: s.llm };
}

/**
 * `GET /v1/sessions` (read scope): the dashboard's sessions list, newest first by `startedAt`,
 * with the filters of contracts `SessionsListQuery` and keyset paging (`nextCursor`); each row
 * carries its LLM totals (calls, tokens, cost).
 * 400 on an invalid query or cursor.
 */
export function listSessions(db: PrismaClient): RequestHandler {
  return async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(SessionsListQuery, req.query, 'query');
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await searchSessions(
      db,
      projectId,
      {
        agentId: q.agentId,
        agentVersionId: q.agentVersionId,
        from: optDate(q.from),
        to: optDate(q.to),
        status: q.status,
        hasBlocks: q.hasBlocks,
        hasPendingApprovals: q.hasPendingApprovals,
        q: q.q,
      },
      q.limit + 1,
      after && { startedAt: after.time, id: after.id },
    );
    const llm = await llmSessionTotals(
      db,
      projectId,
      rows.slice(0, q.limit).map((r) => r.id),
    );
    const withLlm = rows.map((r) => ({ ...r, llm: llm.get(r.id) ?? zeroLlmTotals() }));
    res.json(toPage(withLlm, q.limit, sessionListItem, (r) => r.startedAt));
  };
}

/**
 * `GET /v1/events` (read scope): the events explorer, newest first by `time`, filtered by type,
 * agent, session, guardrail decision and time range (contracts `EventsExplorerQuery`), keyset paged.
 */
export function listEvents(db: PrismaClient): RequestHandler {
  return async (req, res) => {
    const { projectId } = principalOf(req);
    const q = parseOr400(EventsExplorerQuery, req.query, 'query');
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await searchEvents(
      db,
      projectId,
      {
        type: q.type,
        agentId: q.agentId,
        sessionId: q.sessionId,
        decision: q.decision,
        from: optDate(q.from),
        to: optDate(q.to),
      },
      q.limit + 1,
      after,
    );
    res.json(toPage(rows, q.limit, eventView, (r) => r.time));
  };
}
