import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { withQuery } from '../api/client';
import type { SessionRow } from '../api/types';
import { AgentSelect, ChoiceSelect, ClearFilters, TimeRangeInputs } from '../components/Filters';
import { EmptyState, ErrorBox, Loading, PageHeader, QuickStart, StatusBadge } from '../components/ui';
import { duration, num, relative, dateTime } from '../lib/format';
import { tokens, usd } from '../lib/llm';
import { useInfinitePage, useLoadMoreRef } from '../lib/useInfinitePage';
import { useUrlFilters } from '../lib/useUrlFilters';
import { agentLabel, useAgents, useAgentsById, useVersionLabels } from './agents-data';

const FILTERS = [
  'agentId',
  'agentVersionId',
  'from',
  'to',
  'status',
  'hasBlocks',
  'hasPendingApprovals',
  'q',
] as const;
/** Session statuses (contracts SessionStatus). */
const OUTCOMES = ['active', 'completed', 'failed', 'cancelled'] as const;

/** Sessions newest first, with filters kept in the address (shareable) and keyset paging. */
export default function Sessions() {
  const { query, set, clear, anyFilter } = useUrlFilters(FILTERS, { agentId: ['agentVersionId'] });
  const navigate = useNavigate();
  const agents = useAgents();
  const byId = useAgentsById();
  const versions = useVersionLabels();
  const [text, setText] = useState(query.q ?? '');
  // Text search waits for a pause in typing.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((query.q ?? '') !== text) set('q', text || undefined);
    }, 300);
    return () => clearTimeout(t);
  }, [text]);
  const q = useInfinitePage<SessionRow>(['sessions'], '/v1/sessions', query);
  const more = useLoadMoreRef(!!q.hasNextPage, q.isFetchingNextPage, () => void q.fetchNextPage());
  const agent = query.agentId ? byId.get(query.agentId) : undefined;
  return (
    <div className="page">
      <PageHeader
        title="Sessions"
        subtitle="Every agent session, newest first. Open one to replay it."
        actions={
          <a className="btn small" href={withQuery('/v1/sessions/export', query)} download>
            Export NDJSON
          </a>
        }
      />
      <div className="filters">
        <AgentSelect agents={agents.data} value={query.agentId} onChange={(v) => set('agentId', v)} />
        <select
          aria-label="Version"
          value={query.agentVersionId ?? ''}
          disabled={!agent}
          onChange={(e) => set('agentVersionId', e.target.value || undefined)}
        >
          <option value="">All versions</option>
          {agent?.versions.map((v) => (
            <option key={v.id} value={v.id}>
              {v.version}
            </option>
          ))}
        </select>
        <TimeRangeInputs from={query.from} to={query.to} onChange={set} />
        <ChoiceSelect
          label="Outcome"
          allLabel="Any outcome"
          value={query.status}
          options={OUTCOMES}
          onChange={(v) => set('status', v)}
        />
        <label className="inline check">
          <input
            type="checkbox"
            checked={query.hasBlocks === 'true'}
            onChange={(e) => set('hasBlocks', e.target.checked ? 'true' : undefined)}
          />
          Has blocks
        </label>
        <label className="inline check">
          <input
            type="checkbox"
            checked={query.hasPendingApprovals === 'true'}
            onChange={(e) => set('hasPendingApprovals', e.target.checked ? 'true' : undefined)}
          />
          Pending approvals
        </label>
        <input
          className="grow"
          type="search"
          placeholder="Search input summaries…"
          aria-label="Search"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <ClearFilters
          show={anyFilter}
          onClear={() => {
            setText('');
            clear();
          }}
        />
      </div>
      <ErrorBox error={q.error} />
      {q.isLoading ? (
        <Loading />
      ) : q.items.length === 0 ? (
        anyFilter ? (
          <EmptyState title="No session matches these filters">
            <p>Widen the time range or clear the filters.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No sessions yet">
            <QuickStart />
          </EmptyState>
        )
      ) : (
        <table className="table sessions-table">
          <thead>
            <tr>
              <th>Started</th>
              <th>Agent</th>
              <th>Version</th>
              <th>Outcome</th>
              <th>Input</th>
              <th className="num">Events</th>
              <th className="num">Blocks</th>
              <th className="num">Waiting</th>
              <th className="num">Lost</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
              <th className="num">Duration</th>
            </tr>
          </thead>
          <tbody>
            {q.items.map((s) => (
              <tr key={s.id} className="clickable" onClick={() => navigate(`/sessions/${s.id}`)}>
                <td title={dateTime(s.startedAt)}>
                  <Link to={`/sessions/${s.id}`} onClick={(e) => e.stopPropagation()}>
                    {relative(s.startedAt)}
                  </Link>
                </td>
                <td className="ellipsis" title={agentLabel(byId.get(s.agentId), s.agentId)}>
                  {agentLabel(byId.get(s.agentId), s.agentId)}
                </td>
                <td className="mono ellipsis" title={versions.get(s.agentVersionId)}>
                  {versions.get(s.agentVersionId) ?? '—'}
                </td>
                <td>
                  <StatusBadge status={s.status} />
                </td>
                <td className="truncate" title={s.inputSummary ?? ''}>
                  {s.inputSummary ?? <span className="muted">—</span>}
                </td>
                <td className="num">{num(s.eventCount)}</td>
                <td className={s.blocks > 0 ? 'num bad-text' : 'num muted'}>{s.blocks || ''}</td>
                <td className={s.pendingApprovals > 0 ? 'num warn-text' : 'num muted'}>
                  {s.pendingApprovals ? <Link to="/approvals">{s.pendingApprovals}</Link> : ''}
                </td>
                <td className={s.missingSequences > 0 ? 'num warn-text' : 'num muted'}>
                  {s.missingSequences || ''}
                </td>
                <td className="num muted" title={s.llm.calls ? `${num(s.llm.calls)} LLM calls` : undefined}>
                  {s.llm.calls ? tokens(s.llm.inputTokens + s.llm.outputTokens) : ''}
                </td>
                <td className="num" data-testid="session-row-cost">
                  {s.llm.calls ? usd(s.llm.costUsd) : ''}
                </td>
                <td className="num">
                  {duration(new Date(s.endedAt ?? s.lastEventAt).getTime() - new Date(s.startedAt).getTime())}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div ref={more} className="load-more">
        {q.hasNextPage && (
          <button className="btn" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
            {q.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
    </div>
  );
}
