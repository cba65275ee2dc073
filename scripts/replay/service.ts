/** The few service reads and the one registration the replay makes itself (the client does the rest). */

/** Where and how to reach the service. */
export interface ServiceAccess {
  /** Base URL of the service (standalone) or the api (stack mode), without a trailing slash. */
  url: string;
  apiKey: string;
  /** The replay's retrying fetch. */
  fetch: typeof fetch;
}

/** Counts read back from `GET /v1/stats/events` for some agent versions. */
export interface Stats {
  events: number;
  sessions: number;
  /** Stored events sharing a (session, sequence) with another: the same logical event twice. */
  duplicates: number;
  byType: Record<string, number>;
  decisions: Record<string, number>;
}

/** What the service holds of one trajectory's session. */
export interface StoredSession {
  agentVersionId: string | null;
  /** `agent.session.ended` was stored (the client sends it last, after every other event was acknowledged). */
  ended: boolean;
  eventCount: number;
  /** Highest stored sequence; `eventCount < maxSequence` means holes. */
  maxSequence: number;
  /** Earliest stored event time (ISO 8601): a resumed replay anchors the source's timing there. */
  startedAt: string;
}

/** One stored event, as `GET /v1/sessions/:id/events` answers it. */
export interface StoredEvent {
  id: string;
  type: string;
  /** ISO 8601, as stored (a resumed replay sends the event again with it). */
  time: string;
  sequence: number;
  data: Record<string, unknown>;
}

async function getJson<T>(s: ServiceAccess, path: string, init: RequestInit = {}): Promise<T | undefined> {
  const res = await s.fetch(`${s.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${s.apiKey}`,
      accept: 'application/json',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
  if (res.status === 404) return undefined;
  if (!res.ok)
    throw new Error(
      `${init.method ?? 'GET'} ${path.split('?')[0]} answered ${res.status}: ${await res.text()}`,
    );
  return (await res.json()) as T;
}

/**
 * Registers an agent version (`POST /v1/agents/identify`, idempotent: the clients register the same
 * one) and returns the API key's project id. Throws on a non-2xx answer.
 */
export async function identifyProject(
  s: ServiceAccess,
  body: {
    agent: { key: string; name?: string };
    version: { version: string; metadata?: Record<string, unknown> };
  },
): Promise<string> {
  const r = await getJson<{ projectId: string }>(s, '/v1/agents/identify', {
    method: 'POST',
    body: JSON.stringify(body),
  });
  if (!r?.projectId) throw new Error('POST /v1/agents/identify answered no projectId');
  return r.projectId;
}

/** The stored session `sessionId` (`GET /v1/sessions/:id?eventsLimit=0`), or `undefined` when none. */
export async function storedSession(s: ServiceAccess, sessionId: string): Promise<StoredSession | undefined> {
  const r = await getJson<{
    agentVersionId: string | null;
    endedAt: string | null;
    eventCount: number;
    maxSequence: number;
    startedAt: string;
  }>(s, `/v1/sessions/${sessionId}?eventsLimit=0`);
  return (
    r && {
      agentVersionId: r.agentVersionId,
      ended: r.endedAt !== null,
      eventCount: r.eventCount,
      maxSequence: r.maxSequence,
      startedAt: r.startedAt,
    }
  );
}

/** Every stored event of a session, in sequence order (`GET /v1/sessions/:id/events`, paged). */
export async function storedEvents(s: ServiceAccess, sessionId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let cursor: string | undefined;
  do {
    const q = `limit=2000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await getJson<{ items: StoredEvent[]; nextCursor: string | null }>(
      s,
      `/v1/sessions/${sessionId}/events?${q}`,
    );
    if (!page) return out;
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/** Counts for the given agent versions (`GET /v1/stats/events?agentVersionId=a,b`). */
export async function fetchStats(s: ServiceAccess, versions: string[]): Promise<Stats> {
  const r = await getJson<Stats>(
    s,
    `/v1/stats/events?agentVersionId=${encodeURIComponent(versions.join(','))}`,
  );
  if (!r) throw new Error('GET /v1/stats/events answered 404');
  return r;
}
