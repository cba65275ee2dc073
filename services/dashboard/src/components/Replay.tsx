import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { LlmCall, Run, WardenEvent } from '../api/types';
import { describeEvent } from '../lib/events';
import { clock, dateTime } from '../lib/format';
import { toolCallIdOf, toolCalls, type Timeline, type TimelineRow } from '../lib/timeline';
import { describeTransition } from '../lib/transitions';
import { EventDetail } from './EventDetail';
import { Badge } from './ui';

const ROW_PX = 34;
const SPEEDS = [1, 4, 16, 64];

/**
 * The session replay: runs, a virtualised timeline of every event in `sequence` order with lost
 * events shown as gaps, a player (play / pause / step / scrub; keys: space, ← →, Home, End) and the
 * selected event's detail. `selected` is the index into `timeline.events`.
 *
 * While later pages of a large session are `loading` (they arrive in order, so indices stay put),
 * play waits at the last loaded event instead of stopping, and End / "last event" follow the end
 * until every event is in.
 */
export function Replay({
  timeline,
  runs,
  selected,
  onSelect,
  total = timeline.events.length,
  loading = false,
  llmCalls,
}: {
  timeline: Timeline;
  runs: Run[];
  selected: number;
  onSelect: (index: number) => void;
  /** Events the session holds (its `eventCount`), loaded or not. */
  total?: number;
  /** More events are still loading. */
  loading?: boolean;
  /** The session's stored LLM calls by event id (cost, its source). */
  llmCalls?: ReadonlyMap<string, LlmCall>;
}) {
  const { events, rows, rowOf } = timeline;
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(4);
  const calls = useMemo(() => toolCalls(events), [events]);
  const runIndex = useMemo(() => new Map(runs.map((r, i) => [r.id, i])), [runs]);
  const firstOfRun = useMemo(() => {
    const m = new Map<string, number>();
    events.forEach((e, i) => {
      if (e.runId && !m.has(e.runId)) m.set(e.runId, i);
    });
    return m;
  }, [events]);
  const last = events.length - 1;
  // End pressed while events are loading: keep selecting the last one as pages arrive.
  const [follow, setFollow] = useState(false);

  const go = useCallback(
    (i: number) => {
      setFollow(false);
      onSelect(Math.max(0, Math.min(last, i)));
    },
    [onSelect, last],
  );
  const goLast = useCallback(() => {
    onSelect(Math.max(0, last));
    setFollow(loading);
  }, [onSelect, last, loading]);
  useEffect(() => {
    if (!follow) return;
    onSelect(Math.max(0, last));
    if (!loading) setFollow(false);
  }, [follow, last, loading, onSelect]);

  // Play: one event per tick, `speed` events a second.
  useEffect(() => {
    if (!playing) return;
    if (selected >= last) {
      // The next page is on its way: wait for it (this effect runs again when `last` grows).
      if (!loading) setPlaying(false);
      return;
    }
    const t = setTimeout(() => go(selected + 1), 1000 / speed);
    return () => clearTimeout(t);
  }, [playing, selected, speed, last, loading, go]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement | null)?.tagName;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
      if (e.key === ' ') {
        e.preventDefault();
        setPlaying((p) => !p);
      } else if (e.key === 'ArrowRight' || e.key === 'j') {
        e.preventDefault();
        go(selected + 1);
      } else if (e.key === 'ArrowLeft' || e.key === 'k') {
        e.preventDefault();
        go(selected - 1);
      } else if (e.key === 'Home') go(0);
      else if (e.key === 'End') goLast();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go, goLast, selected]);

  const current: WardenEvent | undefined = events[selected];
  const callId = current ? toolCallIdOf(current, calls) : undefined;
  const jump = (id: string) => {
    const i = timeline.indexOf.get(id);
    if (i !== undefined) go(i);
  };

  return (
    <div className="replay">
      <div className="replay-main">
        <RunChips runs={runs} firstOfRun={firstOfRun} activeRunId={current?.runId} onGo={go} />
        <div className="player" role="toolbar" aria-label="Player">
          <button className="btn small" onClick={() => go(0)} title="First (Home)" aria-label="First event">
            |◀
          </button>
          <button
            className="btn small"
            onClick={() => go(selected - 1)}
            title="Step back (←)"
            aria-label="Step back"
          >
            ◀
          </button>
          <button
            className="btn small primary play"
            onClick={() => setPlaying((p) => !p)}
            title="Play / pause (space)"
            aria-label={playing ? 'Pause' : 'Play'}
          >
            {playing ? '❚❚' : '▶'}
          </button>
          <button
            className="btn small"
            onClick={() => go(selected + 1)}
            title="Step forward (→)"
            aria-label="Step forward"
          >
            ▶|
          </button>
          <button className="btn small" onClick={goLast} title="Last (End)" aria-label="Last event">
            ▶▶|
          </button>
          <select aria-label="Speed" value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </select>
          <input
            className="scrub"
            type="range"
            aria-label="Scrub"
            min={0}
            max={Math.max(0, last)}
            value={selected}
            onChange={(e) => go(Number(e.target.value))}
          />
          <span className="position mono" data-testid="position">
            {selected + 1} / {events.length}
          </span>
          {loading && (
            <span className="muted small" data-testid="events-loading" role="status">
              loading events: {events.length.toLocaleString()} of {total.toLocaleString()}
            </span>
          )}
        </div>
        <TimelineList rows={rows} rowOf={rowOf} selected={selected} runIndex={runIndex} onGo={go} />
      </div>
      <aside className="replay-detail">
        {current ? (
          <EventDetail
            event={current}
            call={callId ? calls.get(callId) : undefined}
            calls={calls}
            run={runs.find((r) => r.id === current.runId)}
            llmCall={llmCalls?.get(current.id)}
            onJump={jump}
          />
        ) : (
          <div className="muted">No events.</div>
        )}
        {timeline.lost > 0 && (
          <div className="notice small">
            <Badge tone="warn">{timeline.lost} lost</Badge> Sequence numbers are missing: the client could not
            deliver some events.
          </div>
        )}
      </aside>
    </div>
  );
}

/**
 * The run chips above the player (one per run, the active one highlighted); a click selects the
 * run's first event. Memoised: it renders again only when the active run changes.
 */
const RunChips = memo(function RunChips({
  runs,
  firstOfRun,
  activeRunId,
  onGo,
}: {
  runs: Run[];
  /** Index of each run's first event, by run id. */
  firstOfRun: Map<string, number>;
  activeRunId: string | null | undefined;
  onGo: (index: number) => void;
}) {
  if (runs.length === 0) return null;
  return (
    <div className="runs" aria-label="Runs">
      {runs.map((r, i) => {
        const first = firstOfRun.get(r.id) ?? -1;
        return (
          <button
            key={r.id}
            className={`run-chip run-${i % 6}${activeRunId === r.id ? ' active' : ''}`}
            onClick={() => first >= 0 && onGo(first)}
            title={`${r.inputSummary ?? ''}\n${dateTime(r.startedAt)} → ${dateTime(r.endedAt)}`}
          >
            {r.name ?? `run ${i + 1}`} <span className={`dot status-${r.status}`} /> {r.status}
          </button>
        );
      })}
    </div>
  );
});

/**
 * The virtualised timeline: only the rows in view (plus overscan) are in the DOM, each
 * {@link ROW_PX} high. It owns the virtualizer, so a scroll renders this list alone (not the
 * player, the run chips or the detail), and rows already in view are memoised and not rendered
 * again. Keeps the selected row in view.
 */
const TimelineList = memo(function TimelineList({
  rows,
  rowOf,
  selected,
  runIndex,
  onGo,
}: {
  rows: TimelineRow[];
  /** Row index of each event index. */
  rowOf: number[];
  /** Selected event index. */
  selected: number;
  /** Colour index of each run, by run id. */
  runIndex: Map<string, number>;
  onGo: (index: number) => void;
}) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_PX,
    overscan: 12,
  });

  // Keep the selected row in view.
  useEffect(() => {
    const row = rowOf[selected];
    if (row !== undefined) virtualizer.scrollToIndex(row, { align: 'auto' });
  }, [selected, rowOf, virtualizer]);

  return (
    <div className="timeline" ref={parent} tabIndex={0} aria-label="Timeline">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((v) => {
          const row = rows[v.index]!;
          const isSelected = row.kind === 'event' && row.index === selected;
          const ri = row.kind === 'event' && row.event.runId ? runIndex.get(row.event.runId) : undefined;
          return (
            <TimelineRowView
              key={v.key}
              row={row}
              top={v.start}
              selected={isSelected}
              runColour={ri}
              onGo={onGo}
            />
          );
        })}
      </div>
    </div>
  );
});

/**
 * One row of the timeline at `top` px: an event (click selects it), a gap of lost events, or an
 * approval transition (a service row; click selects the approval's event when loaded).
 */
const TimelineRowView = memo(function TimelineRowView({
  row,
  top,
  selected,
  runColour,
  onGo,
}: {
  row: TimelineRow;
  top: number;
  selected: boolean;
  /** The run's colour index (undefined: no run). */
  runColour: number | undefined;
  onGo: (index: number) => void;
}) {
  const style = {
    position: 'absolute' as const,
    top: 0,
    left: 0,
    right: 0,
    height: ROW_PX,
    transform: `translateY(${top}px)`,
  };
  if (row.kind === 'gap')
    return (
      <div className="tl-row gap" style={style} data-testid="gap">
        ⋯ {row.to - row.from + 1} event{row.to > row.from ? 's' : ''} lost (sequence {row.from}
        {row.to > row.from ? `–${row.to}` : ''})
      </div>
    );
  if (row.kind === 'approval') {
    // A service row (not an event): the player steps over it; a click selects the approval's event.
    const t = row.transition;
    const line = describeTransition(t);
    const linked = row.linked;
    return (
      <div
        className={`tl-row service tone-${line.tone}${linked === undefined ? '' : ' linked'}`}
        style={style}
        onClick={linked === undefined ? undefined : () => onGo(linked)}
        data-testid="approval-transition"
        title={`approval ${t.approvalId}: ${t.fromStatus ?? 'created'} → ${t.toStatus} at ${dateTime(t.at)}`}
      >
        <span className="run-bar" />
        <span className="seq mono" />
        <span className="time mono">{clock(t.at)}</span>
        <span className="icon">{line.icon}</span>
        <span className="title">{line.title}</span>
        <span className="detail">{line.detail}</span>
      </div>
    );
  }
  const e = row.event;
  const line = describeEvent(e);
  return (
    <div
      className={`tl-row tone-${line.tone}${selected ? ' selected' : ''}`}
      style={style}
      onClick={() => onGo(row.index)}
      data-index={row.index}
      aria-selected={selected}
      role="option"
    >
      <span className={runColour === undefined ? 'run-bar' : `run-bar run-${runColour % 6}`} />
      <span className="seq mono">{e.sequence}</span>
      <span className="time mono">{clock(e.time)}</span>
      <span className="icon">{line.icon}</span>
      <span className="title">{line.title}</span>
      <span className="detail">{line.detail}</span>
    </div>
  );
});
