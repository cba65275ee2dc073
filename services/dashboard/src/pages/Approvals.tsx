import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { can, useMe } from '../api/auth';
import type { Approval } from '../api/types';
import { EmptyState, ErrorBox, JsonView, Loading, PageHeader, StatusBadge, Tabs } from '../components/ui';
import { countdown, dateTime, relative, shortId } from '../lib/format';
import { useAgentsById } from './agents-data';
import {
  decideApproval,
  useDecidedApprovals,
  usePendingApprovals,
  useStreamConnected,
} from './approvals-data';

/** The approvals inbox: pending calls waiting for a person (live), and the decided history. */
export default function Approvals() {
  const [tab, setTab] = useState<'pending' | 'decided'>('pending');
  const live = useStreamConnected();
  const pending = usePendingApprovals(live);
  return (
    <div className="page">
      <PageHeader
        title="Approvals"
        subtitle="Tool calls held by a require_approval policy until a person decides."
        actions={
          <span
            className={live ? 'live on' : 'live'}
            title={live ? 'Updates arrive as they happen' : 'Reconnecting…'}
          >
            <span className="dot" /> {live ? 'Live' : 'Connecting'}
          </span>
        }
      />
      <Tabs
        tabs={[
          { id: 'pending', label: `Pending${pending.data ? ` (${pending.data.length})` : ''}` },
          { id: 'decided', label: 'Decided' },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === 'pending' ? <Pending /> : <Decided />}
    </div>
  );
}

function useNow(periodMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), periodMs);
    return () => clearInterval(t);
  }, [periodMs]);
  return now;
}

function Pending() {
  const live = useStreamConnected();
  const q = usePendingApprovals(live);
  const now = useNow();
  if (q.isLoading) return <Loading />;
  if (q.error) return <ErrorBox error={q.error} />;
  const items = q.data ?? [];
  if (items.length === 0)
    return (
      <EmptyState title="Nothing is waiting for you">
        <p>
          When an agent in <strong>enforce</strong> mode calls a tool that a <code>require_approval</code>{' '}
          policy matches, the call waits here until someone approves or denies it. This page updates by
          itself.
        </p>
        <p>
          <Link to="/guardrails/new">Create a policy</Link> with the decision “require approval” to try it.
        </p>
      </EmptyState>
    );
  return (
    <div className="approval-list">
      {items.map((a) => (
        <ApprovalCard key={a.id} approval={a} now={now} />
      ))}
    </div>
  );
}

function policyName(a: Approval): string | undefined {
  return a.policy ? (a.policy.name ?? a.policy.id.slice(0, 8)) : undefined;
}

function ApprovalCard({ approval: a, now }: { approval: Approval; now: number }) {
  const { user } = useMe();
  const qc = useQueryClient();
  const agents = useAgentsById();
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState<'approved' | 'denied' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const allowed = can(user?.role, 'approver');
  const leftMs = new Date(a.expiresAt).getTime() - now;
  const agent = agents.get(a.agentId);
  const args = a.request.arguments;
  const decide = async (status: 'approved' | 'denied') => {
    setBusy(status);
    setError(null);
    try {
      await decideApproval(qc, a.id, status, comment);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  return (
    <article className="card approval" data-approval-id={a.id}>
      <div className="approval-head">
        <div>
          <div className="tool-name">{a.toolName ?? 'action'}</div>
          <div className="muted small">
            agent <strong>{a.agent.name ?? agent?.name ?? a.agent.key ?? shortId(a.agentId)}</strong>
            {a.sessionId && (
              <>
                {' · '}session <Link to={`/sessions/${a.sessionId}`}>{shortId(a.sessionId)}</Link>
              </>
            )}
            {a.policy && (
              <>
                {' · '}policy <Link to={`/guardrails/${a.policy.id}`}>{policyName(a)}</Link>
              </>
            )}
            {' · '}asked {relative(a.createdAt, now)}
          </div>
        </div>
        <div
          className={leftMs < 60_000 ? 'time-left urgent' : 'time-left'}
          title={`expires ${dateTime(a.expiresAt)}`}
        >
          <div className="big-num">{countdown(a.expiresAt, now)}</div>
          <div className="muted small">left · then {a.onTimeout === 'approve' ? 'approved' : 'denied'}</div>
        </div>
      </div>
      <RequestSummary request={a.request} />
      {args !== undefined && args !== null && (
        <>
          <div className="label">Arguments</div>
          <JsonView value={args} maxHeight={220} />
        </>
      )}
      {allowed ? (
        <div className="decide">
          <input
            aria-label="Comment"
            placeholder="Comment (optional, shown on the session timeline)"
            value={comment}
            onChange={(e) => setComment(e.target.value)}
          />
          <button className="btn ok" disabled={busy !== null} onClick={() => void decide('approved')}>
            {busy === 'approved' ? 'Approving…' : 'Approve'}
          </button>
          <button className="btn bad" disabled={busy !== null} onClick={() => void decide('denied')}>
            {busy === 'denied' ? 'Denying…' : 'Deny'}
          </button>
        </div>
      ) : (
        <p className="muted small notice" data-testid="cannot-decide">
          Your role ({user?.role}) can see approvals but not decide them. An approver or an admin decides.
        </p>
      )}
      <ErrorBox error={error} />
    </article>
  );
}

function Decided() {
  const q = useDecidedApprovals();
  const agents = useAgentsById();
  if (q.isLoading) return <Loading />;
  if (q.error) return <ErrorBox error={q.error} />;
  const items = q.data ?? [];
  if (items.length === 0) return <EmptyState title="No decided approvals yet" />;
  return (
    <table className="table">
      <thead>
        <tr>
          <th>Decided</th>
          <th>Status</th>
          <th>Tool</th>
          <th>Agent</th>
          <th>Session</th>
          <th>By</th>
          <th>Comment</th>
        </tr>
      </thead>
      <tbody>
        {items.map((a) => (
          <tr key={a.id}>
            <td title={dateTime(a.decidedAt)}>{relative(a.decidedAt ?? a.expiresAt)}</td>
            <td>
              <StatusBadge status={a.status} />
            </td>
            <td className="mono">{a.toolName ?? '—'}</td>
            <td>{agents.get(a.agentId)?.name ?? agents.get(a.agentId)?.key ?? shortId(a.agentId)}</td>
            <td>{a.sessionId ? <Link to={`/sessions/${a.sessionId}`}>{shortId(a.sessionId)}</Link> : '—'}</td>
            <td>{a.decidedBy ?? '—'}</td>
            <td>{a.comment ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the held call touches besides its arguments (action, resource, risk). */
function RequestSummary({ request }: { request: Record<string, unknown> }) {
  const r = request as {
    action?: { type?: string; name?: string };
    resource?: { type?: string; id?: string; environment?: string };
    riskLevel?: string;
  };
  const parts = [
    r.action?.type && `action ${r.action.type}${r.action.name ? ` · ${r.action.name}` : ''}`,
    r.resource &&
      `resource ${[r.resource.type, r.resource.id, r.resource.environment].filter(Boolean).join(' / ')}`,
    r.riskLevel && `risk ${r.riskLevel}`,
  ].filter(Boolean);
  return parts.length ? <div className="muted small">{parts.join(' · ')}</div> : null;
}
