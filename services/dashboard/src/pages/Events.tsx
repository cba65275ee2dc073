import { useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Link } from 'react-router';
import type { WardenEvent } from '../api/types';
import { AgentSelect, ChoiceSelect, ClearFilters, TimeRangeInputs } from '../components/Filters';
import { EmptyState, ErrorBox, JsonView, Loading, PageHeader, QuickStart } from '../components/ui';
import { DECISIONS, describeEvent, EVENT_TYPES } from '../lib/events';
import { dateTime, shortId } from '../lib/format';
import { useInfinitePage } from '../lib/useInfinitePage';
import { useUrlFilters } from '../lib/useUrlFilters';
import { agentLabel, useAgents, useAgentsById } from './agents-data';

const FILTERS = ['type', 'agentId', 'decision', 'from', 'to'] as const;
const ROW_PX = 36;

/** Every event, newest first, by type, agent, decision and time; the selected event's full JSON. */
export default function Events() {
  const { query, set, clear, anyFilter } = useUrlFilters(FILTERS);
  const agents = useAgents();
  const byId = useAgentsById();
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
  return (
    <div className="page events-page">
      <PageHeader title="Events" subtitle="Everything the agents reported, newest first." />
      <div className="filters">
        <ChoiceSelect
          label="Type"
          allLabel="All types"
          value={query.type}
          options={EVENT_TYPES}
          onChange={(v) => set('type', v)}
        />
        <AgentSelect agents={agents.data} value={query.agentId} onChange={(v) => set('agentId', v)} />
        <ChoiceSelect
          label="Decision"
          allLabel="Any decision"
          value={query.decision}
          options={DECISIONS}
          format={(d) => d.replace('_', ' ')}
          onChange={(v) => set('decision', v)}
        />
        <TimeRangeInputs from={query.from} to={query.to} onChange={set} />
        <ClearFilters show={anyFilter} onClear={clear} />
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
