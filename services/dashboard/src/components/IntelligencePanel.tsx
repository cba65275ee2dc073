import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { can, useMe } from '../api/auth';
import { api, ApiError } from '../api/client';
import type { RecommendationView, SessionIntelligenceView } from '../api/types';
import { clock, duration, num } from '../lib/format';
import { Badge, ErrorBox, StatusBadge } from './ui';
import type { Tone } from '../lib/events';

const SEVERITY_TONE: Record<string, Tone> = {
  info: 'info',
  low: 'neutral',
  medium: 'warn',
  high: 'bad',
  critical: 'bad',
};

/** The session's intelligence, or `null` while it is being prepared (404). Polls until it exists. */
function useIntelligence(sessionId: string) {
  return useQuery({
    queryKey: ['intelligence', sessionId],
    queryFn: async () => {
      try {
        return await api<SessionIntelligenceView>(`/v1/sessions/${sessionId}/intelligence`);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    refetchInterval: (q) => (q.state.data === null || q.state.data?.status === 'stale' ? 3000 : false),
  });
}

/**
 * What the service learned about a session: summary and figures, the story (each moment jumps to
 * its events), action items and recommendations with evidence, "backtest" and "create draft policy".
 */
export function IntelligencePanel({
  sessionId,
  onJump,
}: {
  sessionId: string;
  onJump: (eventId: string) => void;
}) {
  const q = useIntelligence(sessionId);
  const qc = useQueryClient();
  const regenerate = useMutation({
    mutationFn: () => api(`/v1/sessions/${sessionId}/intelligence`, { method: 'POST' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['intelligence', sessionId] }),
  });
  const intel = q.data;
  return (
    <div className="intel" data-testid="intelligence">
      <div className="row spread">
        <h2>Intelligence</h2>
        <button
          className="btn small ghost"
          onClick={() => regenerate.mutate()}
          disabled={regenerate.isPending}
          title="Analyse again"
        >
          ↻
        </button>
      </div>
      <ErrorBox error={q.error ?? regenerate.error} />
      {q.isLoading && <div className="muted">Loading…</div>}
      {intel === null && (
        <div className="muted preparing">
          <span className="spinner" /> Being prepared: the analysis runs once the session has ended or gone
          quiet.
        </div>
      )}
      {intel && <IntelligenceBody intel={intel} onJump={onJump} />}
    </div>
  );
}

function Evidence({ ids, onJump }: { ids: string[]; onJump: (id: string) => void }) {
  if (ids.length === 0) return null;
  return (
    <span className="evidence">
      {ids.slice(0, 8).map((id, i) => (
        <button key={id} className="link" onClick={() => onJump(id)} title={id}>
          [{i + 1}]
        </button>
      ))}
      {ids.length > 8 && <span className="muted small"> +{ids.length - 8}</span>}
    </span>
  );
}

function IntelligenceBody({
  intel,
  onJump,
}: {
  intel: SessionIntelligenceView;
  onJump: (id: string) => void;
}) {
  const f = intel.summary.figures;
  return (
    <>
      <section>
        <div className="row tight">
          <StatusBadge status={intel.summary.outcome.status} />
          {intel.status === 'stale' && <Badge tone="warn">updating</Badge>}
          <span className="muted small">
            v{intel.version} · {intel.generator}
          </span>
        </div>
        <p className="summary-text" data-testid="intel-summary">
          {intel.summary.text}
        </p>
        <div className="figures">
          <Figure label="tool calls" value={num(f.toolCalls)} />
          <Figure label="failures" value={num(f.toolFailures)} bad={f.toolFailures > 0} />
          <Figure label="blocked" value={num(f.decisions.block ?? 0)} bad={(f.decisions.block ?? 0) > 0} />
          <Figure label="approvals" value={num(f.approvals.requested)} />
          <Figure label="lost events" value={num(f.lostEvents)} bad={f.lostEvents > 0} />
          <Figure
            label={f.timing === 'replay' ? 'duration (replay)' : 'duration'}
            value={duration(f.durationMs)}
          />
        </div>
      </section>
      {intel.actionItems.length > 0 && (
        <section>
          <h3>Action items</h3>
          <ul className="items">
            {intel.actionItems.map((a, i) => (
              <li key={i} className={`item sev-${a.severity}`}>
                <div className="row tight">
                  <Badge tone={SEVERITY_TONE[a.severity]}>{a.severity}</Badge>
                  <strong>{a.title}</strong>
                </div>
                <div className="small">{a.detail}</div>
                <Evidence ids={a.evidenceEventIds} onJump={onJump} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {intel.recommendations.length > 0 && (
        <section>
          <h3>Recommendations</h3>
          <ul className="items">
            {intel.recommendations.map((r) => (
              <Recommendation key={r.id} rec={r} sessionId={intel.sessionId} onJump={onJump} />
            ))}
          </ul>
        </section>
      )}
      <section>
        <h3>Story</h3>
        <ol className="story">
          {intel.story.map((m, i) => (
            <li key={i} className={`moment kind-${m.kind}`}>
              <button
                className="moment-btn"
                onClick={() => onJump(m.eventIds[0]!)}
                data-testid="story-moment"
              >
                <span className="mono muted small">{clock(m.time)}</span>
                <span className="moment-title">{m.title}</span>
              </button>
              {m.text && <div className="small muted">{m.text}</div>}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

function Figure({ label, value, bad }: { label: string; value: string; bad?: boolean }) {
  return (
    <div className={bad ? 'figure bad' : 'figure'}>
      <div className="value">{value}</div>
      <div className="muted small">{label}</div>
    </div>
  );
}

function Recommendation({
  rec,
  sessionId,
  onJump,
}: {
  rec: RecommendationView;
  sessionId: string;
  onJump: (id: string) => void;
}) {
  const { user } = useMe();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const decide = useMutation({
    mutationFn: (status: 'accepted' | 'dismissed') =>
      api<RecommendationView>(`/v1/recommendations/${rec.id}/decision`, { method: 'POST', body: { status } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['intelligence', sessionId] }),
  });
  const admin = can(user?.role, 'admin');
  const policyId = decide.data?.policyId ?? rec.policyId;
  return (
    <li className={`item sev-${rec.severity}`}>
      <div className="row tight">
        <Badge tone={SEVERITY_TONE[rec.severity]}>{rec.severity}</Badge>
        <strong>{rec.title}</strong>
      </div>
      <div className="small">{rec.rationale}</div>
      <Evidence ids={rec.evidenceEventIds} onJump={onJump} />
      <div className="row tight actions">
        <button
          className="btn small"
          onClick={() =>
            navigate('/guardrails/new', { state: { draft: rec.policy, backtest: true, from: rec.title } })
          }
        >
          Backtest
        </button>
        {rec.status === 'open' && !policyId && admin && (
          <>
            <button
              className="btn small primary"
              disabled={decide.isPending}
              onClick={() => decide.mutate('accepted')}
            >
              Create draft policy
            </button>
            <button
              className="btn small ghost"
              disabled={decide.isPending}
              onClick={() => decide.mutate('dismissed')}
            >
              Dismiss
            </button>
          </>
        )}
        {policyId && (
          <Link className="btn small" to={`/guardrails/${policyId}`}>
            Open draft policy
          </Link>
        )}
        {rec.status === 'dismissed' && <Badge>dismissed</Badge>}
      </div>
      <ErrorBox error={decide.error} />
    </li>
  );
}
