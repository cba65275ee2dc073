import { useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Link, useSearchParams } from 'react-router';
import type { WardenEvent } from '../api/types';
import { EmptyState, ErrorBox, JsonView, Loading, PageHeader, QuickStart } from '../components/ui';
import { DECISIONS, describeEvent, EVENT_TYPES } from '../lib/events';
import { dateTime, isoToLocalInput, localInputToIso, shortId } from '../lib/format';
import { useInfinitePage } from '../lib/useInfinitePage';
import { agentLabel, useAgents, useAgentsById } from './agents-data';

const FILTERS = ['type', 'agentId', 'decision', 'from', 'to'] as const;
const ROW_PX = 36;

/** Every event, newest first, by type, agent, decision and time; the selected event's full JSON. */
export default function Events() {
  const [params, setParams] = useSearchParams();
  const agents = useAgents();
  const byId = useAgentsById();
  const query = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? undefined]));
  const set = (k: (typeof FILTERS)[number], v: string | undefined) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next, { replace: true });
  };
  const q = useInfinitePage<WardenEvent>(['events'], '/v1/events', query, 100);
  const [selected, setSelected] = useState<WardenEvent | null>(null);
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: q.items.length + (q.hasNextPage ? 1 : 0),
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_PX,
    overscan: 15,
  });
  const vItems = v.getVirtualItems();
  const lastIndex = vItems[vItems.length - 1]?.index ?? 0;
  useEffect(() => {
    if (q.hasNextPage && !q.isFetchingNextPage && lastIndex >= q.items.length - 1) void q.fetchNextPage();
  }, [lastIndex, q.items.length, q.hasNextPage, q.isFetchingNextPage, q]);
  const anyFilter = FILTERS.some((f) => params.get(f));
  return (
    <div className="page events-page">
      <PageHeader title="Events" subtitle="Everything the agents reported, newest first." />
      <div className="filters">
        <select
          aria-label="Type"
          value={query.type ?? ''}
          onChange={(e) => set('type', e.target.value || undefined)}
        >
          <option value="">All types</option>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <select
          aria-label="Agent"
          value={query.agentId ?? ''}
          onChange={(e) => set('agentId', e.target.value || undefined)}
        >
          <option value="">All agents</option>
          {agents.data?.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name ?? a.key}
            </option>
          ))}
        </select>
        <select
          aria-label="Decision"
          value={query.decision ?? ''}
          onChange={(e) => set('decision', e.target.value || undefined)}
        >
          <option value="">Any decision</option>
          {DECISIONS.map((d) => (
            <option key={d} value={d}>
              {d.replace('_', ' ')}
            </option>
          ))}
        </select>
        <label className="inline">
          From
          <input
            type="datetime-local"
            value={isoToLocalInput(query.from)}
            onChange={(e) => set('from', localInputToIso(e.target.value))}
          />
        </label>
        <label className="inline">
          To
          <input
            type="datetime-local"
            value={isoToLocalInput(query.to)}
            onChange={(e) => set('to', localInputToIso(e.target.value))}
          />
        </label>
        {anyFilter && (
          <button
            className="btn ghost small"
            onClick={() => setParams(new URLSearchParams(), { replace: true })}
          >
            Clear
          </button>
        )}
      </div>
      <ErrorBox error={q.error} />
      {q.isLoading ? (
        <Loading />
      ) : q.items.length === 0 ? (
        anyFilter ? (
          <EmptyState title="No event matches these filters" />
        ) : (
          <EmptyState title="No events yet">
            <QuickStart />
          </EmptyState>
        )
      ) : (
        <div className="split">
          <div className="event-list" ref={parent}>
            <div style={{ height: v.getTotalSize(), position: 'relative' }}>
              {vItems.map((item) => {
                const e = q.items[item.index];
                const style = {
                  position: 'absolute' as const,
                  top: 0,
                  left: 0,
                  right: 0,
                  height: ROW_PX,
                  transform: `translateY(${item.start}px)`,
                };
                if (!e)
                  return (
                    <div key={item.key} className="tl-row muted" style={style}>
                      Loading more…
                    </div>
                  );
                const line = describeEvent(e);
                return (
                  <div
                    key={item.key}
                    style={style}
                    className={`tl-row tone-${line.tone}${selected?.id === e.id ? ' selected' : ''}`}
                    onClick={() => setSelected(e)}
                  >
                    <span className="time mono">{dateTime(e.time)}</span>
                    <span className="icon">{line.icon}</span>
                    <span className="type mono small">{e.type.replace('agent.', '')}</span>
                    <span className="agent small">{agentLabel(byId.get(e.agentId), e.agentId)}</span>
                    <span className="title">{line.title}</span>
                    <span className="detail">{line.detail}</span>
                  </div>
                );
              })}
            </div>
          </div>
          <aside className="event-json">
            {selected ? (
              <>
                <div className="row spread">
                  <strong>{selected.type}</strong>
                  <Link to={`/sessions/${selected.sessionId}?event=${selected.id}`}>
                    Open in session {shortId(selected.sessionId)} →
                  </Link>
                </div>
                <JsonView value={selected} />
              </>
            ) : (
              <div className="muted">Select an event to see its full JSON.</div>
            )}
          </aside>
        </div>
      )}
    </div>
  );
}
