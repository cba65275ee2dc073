import { useEffect, useMemo, useRef, useState } from 'react';
import { api, type Page } from '../api/client';
import type { WardenEvent } from '../api/types';

/** Events the session request brings with it (`?eventsLimit=`): enough for a first screen. */
export const FIRST_PAGE = 200;
/** Events per later request (`GET /v1/sessions/:id/events`, the API's largest page). */
export const NEXT_PAGE = 2000;

/** The first page, as the session detail (`?eventsLimit=FIRST_PAGE`) returns it. */
export interface FirstEvents {
  /** The session's id. */
  id: string;
  events: WardenEvent[];
  /** Cursor of the rest; null when the first page held every event. */
  eventsNextCursor?: string | null;
}

interface LoadedPage {
  /** The cursor this page was fetched with (null: from the first event). */
  cursor: string | null;
  items: WardenEvent[];
}

interface State {
  sessionId: string;
  pages: LoadedPage[];
  /** Cursor of the next page to fetch; null once every event is loaded. */
  next: string | null;
}

/** What {@link useSessionEvents} gives the replay. */
export interface SessionEvents {
  /** Every event loaded so far, in replay order (pages arrive in `sequence` order, so indices stay put). */
  events: WardenEvent[];
  /** More pages are on their way. */
  loading: boolean;
  error?: Error;
}

/**
 * Loads a session's events progressively: starts from the detail's first page, then fetches the
 * rest in pages of {@link NEXT_PAGE} one after another until the end, so a session of 10,000 events
 * shows its first rows after one small request. Each change of `refreshKey` (the detail refetched
 * while the session is active) re-reads the last page and follows on, picking up new events.
 */
export function useSessionEvents(first: FirstEvents | undefined, refreshKey: number): SessionEvents {
  const [state, setState] = useState<State | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const initial = useMemo<State | undefined>(
    () =>
      first && {
        sessionId: first.id,
        pages: [{ cursor: null, items: first.events }],
        next: first.eventsNextCursor ?? null,
      },
    [first],
  );
  const current = state && first && state.sessionId === first.id ? state : initial;
  const latest = useRef(current);
  latest.current = current;

  // Fetch the next page while there is one (each arrival renders, then asks for the following one).
  const next = current?.next ?? null;
  const sessionId = current?.sessionId;
  useEffect(() => {
    if (!sessionId || !next) return;
    const ctrl = new AbortController();
    api<Page<WardenEvent>>(`/v1/sessions/${sessionId}/events`, {
      query: { limit: NEXT_PAGE, cursor: next },
      signal: ctrl.signal,
    }).then(
      (page) => {
        const s = latest.current;
        if (!s || s.sessionId !== sessionId || s.next !== next) return;
        setState({
          sessionId,
          pages: [...s.pages, { cursor: next, items: page.items }],
          next: page.nextCursor,
        });
      },
      (err: Error) => {
        if (err.name !== 'AbortError') setError(err);
      },
    );
    return () => ctrl.abort();
  }, [sessionId, next]);

  // An active session grows: re-read its last page from that page's cursor and go on from there.
  const refreshed = useRef(refreshKey);
  useEffect(() => {
    if (refreshed.current === refreshKey) return;
    refreshed.current = refreshKey;
    const s = latest.current;
    const tail = s?.pages[s.pages.length - 1];
    if (!s || s.next || !tail) return;
    const ctrl = new AbortController();
    api<Page<WardenEvent>>(`/v1/sessions/${s.sessionId}/events`, {
      query: { limit: NEXT_PAGE, cursor: tail.cursor },
      signal: ctrl.signal,
    }).then(
      (page) => {
        const now = latest.current;
        if (!now || now.sessionId !== s.sessionId || now.pages.length !== s.pages.length) return;
        setState({
          sessionId: s.sessionId,
          pages: [...now.pages.slice(0, -1), { cursor: tail.cursor, items: page.items }],
          next: page.nextCursor,
        });
      },
      (err: Error) => {
        if (err.name !== 'AbortError') setError(err);
      },
    );
    return () => ctrl.abort();
  }, [refreshKey]);

  const pages = current?.pages;
  const events = useMemo(() => (pages ? pages.flatMap((p) => p.items) : []), [pages]);
  return { events, loading: Boolean(current?.next) && !error, error };
}
