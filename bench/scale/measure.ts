import { percentile } from '../lib/stats';

const DAY = 86_400_000;

/** One request shape measured at every checkpoint of `npm run bench:scale`. */
export interface ScaleScenario {
  group: 'sessions' | 'session page' | 'events' | 'backtest';
  name: string;
  method: 'GET' | 'POST';
  /** Path and query (the api's base URL is prepended). */
  path: string;
  body?: unknown;
}

/** Ids and times the scenarios query by. */
export interface ScenarioContext {
  agentId: string;
  agentVersionId: string;
  bigSessionId: string;
  /** Cursor of the 10th page of the long session's events (500 a page), once known. */
  bigSessionPage10?: string;
  /** The data set's clock (session times end here). */
  now: Date;
  days: number;
}

/** A search term of the sessions list: generic English, not a value taken from the trajectories. */
const COMMON_WORD = 'flight';

/**
 * The read API requests of the checkpoints: the sessions list with each filter the api offers
 * (contracts `SessionsListQuery`), the long session's page (detail with the first events, events
 * paged), the events explorer (contracts `EventsExplorerQuery`) and a backtest of a draft policy
 * over the whole window (at most `BACKTEST_MAX_SCAN` = 1,000,000 calls).
 */
export function scaleScenarios(c: ScenarioContext): ScaleScenario[] {
  const lastDay = `from=${new Date(c.now.getTime() - DAY).toISOString()}`;
  const week = `from=${new Date(c.now.getTime() - 37 * DAY).toISOString()}&to=${new Date(c.now.getTime() - 30 * DAY).toISOString()}`;
  const get = (group: ScaleScenario['group'], name: string, path: string): ScaleScenario => ({
    group,
    name,
    method: 'GET',
    path,
  });
  const s = (name: string, q: string) => get('sessions', name, `/v1/sessions?limit=50${q}`);
  const e = (name: string, q: string) => get('events', name, `/v1/events?limit=50${q}`);
  const big = `/v1/sessions/${c.bigSessionId}`;
  return [
    s('no filter', ''),
    s('agent', `&agentId=${c.agentId}`),
    s('version', `&agentVersionId=${c.agentVersionId}`),
    s('last 24 h', `&${lastDay}`),
    s('a week, 30 days ago', `&${week}`),
    s('status=failed', '&status=failed'),
    s('hasBlocks=true', '&hasBlocks=true'),
    s('hasPendingApprovals=true (none)', '&hasPendingApprovals=true'),
    s(`q=${COMMON_WORD}`, `&q=${COMMON_WORD}`),
    s('q=zzzq (no match)', '&q=zzzq'),
    s('agent + failed + hasBlocks', `&agentId=${c.agentId}&status=failed&hasBlocks=true`),
    get('session page', '10k-event session: detail, first 500 events', `${big}?eventsLimit=500`),
    get('session page', '10k-event session: events, first page (500)', `${big}/events?limit=500`),
    ...(c.bigSessionPage10
      ? [
          get(
            'session page',
            '10k-event session: events, 10th page',
            `${big}/events?limit=500&cursor=${c.bigSessionPage10}`,
          ),
        ]
      : []),
    get('session page', '10k-event session: evaluations', `${big}/evaluations`),
    e('no filter', ''),
    e('type=agent.tool.started', '&type=agent.tool.started'),
    e('agent', `&agentId=${c.agentId}`),
    e('decision=block', '&decision=block'),
    e('agent + last 24 h', `&agentId=${c.agentId}&${lastDay}`),
    e('one session', `&sessionId=${c.bigSessionId}`),
    {
      group: 'backtest',
      name: 'draft policy, whole window',
      method: 'POST',
      path: '/v1/policies/backtest',
      body: {
        policy: {
          name: 'Scale: destructive shell commands',
          decision: 'block',
          match: { field: 'arguments.command', op: 'regex', value: 'rm\\s+-rf' },
        },
        from: new Date(c.now.getTime() - (c.days + 1) * DAY).toISOString(),
        to: new Date(c.now.getTime() + DAY).toISOString(),
        limit: 100,
      },
    },
  ];
}

/** Latencies of one scenario at one checkpoint. */
export interface Measured {
  scenario: ScaleScenario;
  p50: number;
  max: number;
  runs: number;
  /** Rows of the last answer (`items`), or for a backtest the calls scanned. */
  rows: number;
  /** Backtest only: whether the scan stopped at the 1,000,000-call cap. */
  truncated?: boolean;
}

/** Sends one request; throws with the answer on anything but 200. Returns the parsed body. */
export async function request(
  baseUrl: string,
  key: string,
  s: ScaleScenario,
): Promise<Record<string, unknown>> {
  const res = await fetch(baseUrl + s.path, {
    method: s.method,
    headers: { authorization: `Bearer ${key}`, ...(s.body ? { 'content-type': 'application/json' } : {}) },
    ...(s.body ? { body: JSON.stringify(s.body) } : {}),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200)
    throw new Error(`${s.group} / ${s.name}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Times `s` `runs` times after `warmup` unmeasured requests, one request at a time; ms. */
export async function measure(
  baseUrl: string,
  key: string,
  s: ScaleScenario,
  opts: { warmup: number; runs: number },
): Promise<Measured> {
  const times: number[] = [];
  let body: Record<string, unknown> = {};
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    const t0 = performance.now();
    body = await request(baseUrl, key, s);
    if (i >= opts.warmup) times.push(performance.now() - t0);
  }
  const rows =
    s.group === 'backtest'
      ? Number(body.scanned)
      : ((body.items ?? body.events) as unknown[] | undefined)?.length;
  return {
    scenario: s,
    p50: percentile(times, 50),
    max: Math.max(...times),
    runs: opts.runs,
    rows: rows ?? 0,
    ...(s.group === 'backtest' && { truncated: body.truncated === true }),
  };
}

/** The cursor that starts page `n` (1-based) of a session's events, `limit` a page; undefined past the end. */
export async function sessionEventsCursor(
  baseUrl: string,
  key: string,
  sessionId: string,
  n: number,
  limit: number,
): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 1; page < n; page++) {
    const path = `/v1/sessions/${sessionId}/events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const body = await request(baseUrl, key, { group: 'session page', name: 'walk', method: 'GET', path });
    cursor = (body.nextCursor as string | null) ?? undefined;
    if (!cursor) return undefined;
  }
  return cursor;
}
