import { useCallback, useMemo, useState } from 'react';
import { usePrefetchQuery, useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../api/client';
import type { LlmCall, SessionDetail } from '../api/types';
import { IntelligencePanel } from '../components/IntelligencePanel';
import { LlmCallsPanel } from '../components/LlmCallsPanel';
import { Replay } from '../components/Replay';
import { ScoresPanel } from '../components/ScoresPanel';
import { SessionActions } from '../components/SessionActions';
import { Badge, ErrorBox, Loading, StatusBadge } from '../components/ui';
import { dateTime, duration, num } from '../lib/format';
import { tokens, usd } from '../lib/llm';
import { buildTimeline } from '../lib/timeline';
import { timingNote } from '../lib/timing';
import { FIRST_PAGE, useSessionEvents } from '../lib/useSessionEvents';
import { agentLabel, useAgentsById, useVersionLabels } from './agents-data';

/**
 * One session: header (with its LLM cost and tokens), scores (set one by hand), LLM calls, intelligence, and the replay of its runs and events. `?event=<id>` selects an
 * event. The detail brings the first {@link FIRST_PAGE} events; the rest load page by page behind it.
 */
export default function SessionPage() {
  const { sessionId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const agents = useAgentsById();
  const versions = useVersionLabels();
  const detail = {
    queryKey: ['session', sessionId],
    queryFn: () => api<SessionDetail>(`/v1/sessions/${sessionId}`, { query: { eventsLimit: FIRST_PAGE } }),
  };
  // Asked for while rendering, not after the first commit: React holds a route's first commit
  // behind its Suspense fallback for a while, and the session should be on its way meanwhile.
  usePrefetchQuery(detail);
  const q = useQuery({
    ...detail,
    refetchInterval: (s) => (s.state.data?.status === 'active' ? 5000 : false),
  });
  // The session's LLM calls with their stored cost (the event detail shows the call's).
  const llm = useQuery({
    queryKey: ['session-llm-calls', sessionId],
    queryFn: async () => (await api<{ items: LlmCall[] }>(`/v1/sessions/${sessionId}/llm-calls`)).items,
    enabled: (q.data?.llm.calls ?? 0) > 0,
  });
  const llmByEvent = useMemo(() => new Map((llm.data ?? []).map((c) => [c.eventId, c])), [llm.data]);
  const loaded = useSessionEvents(q.data, q.data?.status === 'active' ? q.dataUpdatedAt : 0);
  // Approval transitions join the events by time (transitions past the loaded events wait for them).
  const timeline = useMemo(
    () =>
      q.data
        ? buildTimeline(loaded.events, q.data.approvalTransitions, { complete: !loaded.loading })
        : undefined,
    [q.data, loaded.events, loaded.loading],
  );
  const [selectedState, setSelected] = useState<number | null>(null);
  const fromUrl = params.get('event');
  const selected =
    selectedState ?? (fromUrl && timeline?.indexOf.has(fromUrl) ? timeline.indexOf.get(fromUrl)! : 0);
  const onSelect = useCallback((i: number) => setSelected(i), []);
  const jump = useCallback(
    (eventId: string) => {
      const i = timeline?.indexOf.get(eventId);
      if (i !== undefined) setSelected(i);
      if (params.has('event')) setParams({}, { replace: true });
    },
    [timeline, params, setParams],
  );
  if (q.isLoading) return <Loading what="Loading session" />;
  if (q.error || loaded.error || !q.data || !timeline)
    return <ErrorBox error={q.error ?? loaded.error ?? new Error('no session')} />;
  const s = q.data;
  const timing = timingNote(s.events);
  return (
    <div className="page session-page">
      <header className="session-header">
        <div className="crumbs">
          <Link to="/sessions">Sessions</Link> / <span className="mono">{s.id.slice(0, 8)}</span>
        </div>
        <h1 className="session-title" title={s.inputSummary ?? ''}>
          {s.inputSummary ?? 'Session'}
        </h1>
        <div className="meta">
          <StatusBadge status={s.status} />
          <span>
            <Link to={`/agents/${s.agentId}`}>{agentLabel(agents.get(s.agentId), s.agentId)}</Link>{' '}
            <span className="mono muted">{versions.get(s.agentVersionId) ?? ''}</span>
          </span>
          <span>started {dateTime(s.startedAt)}</span>
          <span>
            {duration(new Date(s.endedAt ?? s.lastEventAt).getTime() - new Date(s.startedAt).getTime())}
          </span>
          {timing && (
            <span className="muted small" title={timing.title} data-testid="session-timing">
              {timing.text}
            </span>
          )}
          <span>{num(s.eventCount)} events</span>
          {s.llm.calls > 0 && (
            <span
              data-testid="session-cost"
              title={`${num(s.llm.calls)} LLM calls${s.llm.unpricedCalls > 0 ? `; ${num(s.llm.unpricedCalls)} of models without a price are not in the cost` : ''}`}
            >
              {usd(s.llm.costUsd)}
              {s.llm.unpricedCalls > 0 && s.llm.costUsd !== null && '+'} ·{' '}
              {tokens(s.llm.inputTokens + s.llm.outputTokens)} tokens
            </span>
          )}
          <span>{s.runs.length} runs</span>
          {s.missingSequences > 0 && <Badge tone="warn">{s.missingSequences} lost</Badge>}
          <SessionActions sessionId={s.id} />
        </div>
      </header>
      <div className="session-body">
        <aside className="session-intel">
          <ScoresPanel sessionId={s.id} scores={s.scores} runs={s.runs} />
          <LlmCallsPanel totals={s.llm} calls={llm.data ?? []} onJump={jump} />
          <IntelligencePanel sessionId={s.id} onJump={jump} />
        </aside>
        <Replay
          timeline={timeline}
          runs={s.runs}
          total={Math.max(s.eventCount, timeline.events.length)}
          loading={loaded.loading}
          selected={Math.min(selected, Math.max(0, timeline.events.length - 1))}
          onSelect={onSelect}
          llmCalls={llmByEvent}
        />
      </div>
    </div>
  );
}
