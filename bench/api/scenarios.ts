import type { Seeded } from './seed';

/** One measured request shape of the dashboard's read API. */
export interface Scenario {
  group: 'sessions' | 'events' | 'stats' | 'agents';
  name: string;
  /** Path and query (the api's base URL is prepended). */
  path: string;
}

const DAY = 86_400_000;

/** The scenarios `npm run bench:api` measures over a seeded data set; `deepCursor` points ~half way down the list. */
export function apiScenarios(s: Seeded, deepCursor: string, now = Date.now()): Scenario[] {
  const agent = s.agentIds[3]!;
  const version = s.versionIds[7]!;
  const lastDay = `from=${new Date(now - DAY).toISOString()}`;
  const sessions = (name: string, query: string): Scenario => ({
    group: 'sessions',
    name,
    path: `/v1/sessions?limit=50${query}`,
  });
  const events = (name: string, query: string): Scenario => ({
    group: 'events',
    name,
    path: `/v1/events?limit=50${query}`,
  });
  return [
    sessions('first page, no filter', ''),
    sessions('agent', `&agentId=${agent}`),
    sessions('version', `&agentVersionId=${version}`),
    sessions('last 24 h', `&${lastDay}`),
    sessions('status=failed', '&status=failed'),
    sessions('status=cancelled,active', '&status=cancelled,active'),
    sessions('hasBlocks=true', '&hasBlocks=true'),
    sessions('hasBlocks=false', '&hasBlocks=false'),
    sessions('hasPendingApprovals=true', '&hasPendingApprovals=true'),
    sessions('q=refund (10 % match)', '&q=refund'),
    sessions("q=' 4711 for' (rare)", `&q=${encodeURIComponent(' 4711 for')}`),
    sessions('q=zzz (no match)', '&q=zzzq'),
    sessions('agent + failed + hasBlocks', `&agentId=${agent}&status=failed&hasBlocks=true`),
    sessions('deep page (cursor half way)', `&cursor=${deepCursor}`),
    events('first page, no filter', ''),
    events('type=agent.tool.started', '&type=agent.tool.started'),
    events('agent', `&agentId=${agent}`),
    events('decision=block', '&decision=block'),
    events('agent + last 24 h', `&agentId=${agent}&${lastDay}`),
    { group: 'stats', name: 'decisions, hour buckets, 48 h', path: '/v1/stats/decisions?bucket=hour' },
    {
      group: 'stats',
      name: 'decisions, day buckets, 30 days',
      path: `/v1/stats/decisions?bucket=day&from=${new Date(now - 30 * DAY).toISOString()}`,
    },
    {
      group: 'stats',
      name: 'top policies, 30 days',
      path: `/v1/stats/top-policies?from=${new Date(now - 30 * DAY).toISOString()}`,
    },
    { group: 'agents', name: 'agent detail', path: `/v1/agents/${agent}` },
  ];
}
