import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { can, useMe } from '../api/auth';
import { api, ApiError } from '../api/client';
import type { PolicyView } from '../api/types';
import { DecisionsChart, TopPoliciesChart } from '../components/Charts';
import { DecisionBadge, EmptyState, ErrorBox, Loading, PageHeader } from '../components/ui';
import { relative } from '../lib/format';
import { decisionBuckets, topPolicies } from '../lib/stats';
import { usePolicies } from './policies-data';

const RANGES = {
  '24h': { ms: 86_400_000, bucket: 'hour' },
  '7d': { ms: 7 * 86_400_000, bucket: 'day' },
  '30d': { ms: 30 * 86_400_000, bucket: 'day' },
} as const;

/** Guardrails: decisions over time, top matched policies, and the policies list. */
export default function Guardrails() {
  const { user } = useMe();
  const navigate = useNavigate();
  const policies = usePolicies();
  const admin = can(user?.role, 'admin');
  return (
    <div className="page">
      <PageHeader
        title="Guardrails"
        subtitle="Policies decide, before a tool runs, whether it may: allow, warn, require approval or block."
        actions={
          admin && (
            <button className="btn primary" onClick={() => navigate('/guardrails/new')}>
              New policy
            </button>
          )
        }
      />
      <Insights />
      <h2>Policies</h2>
      {policies.isLoading && <Loading />}
      <ErrorBox error={policies.error} />
      {policies.data && policies.data.length === 0 && (
        <EmptyState title="No policies yet">
          <p>
            Every call is allowed until a policy says otherwise. Create one — for example “block{' '}
            <code>bash</code> commands matching <code>rm -rf</code>” — try it on a sample call, backtest it
            over the calls already stored, then enable it.
          </p>
          <p>Or open a session and accept one of its recommendations: it becomes a disabled draft policy.</p>
          {admin && (
            <Link className="btn primary" to="/guardrails/new">
              Create a policy
            </Link>
          )}
        </EmptyState>
      )}
      {policies.data && policies.data.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Decision</th>
              <th>Rule</th>
              <th className="num">Version</th>
              <th>Updated</th>
              <th>Enabled</th>
            </tr>
          </thead>
          <tbody>
            {policies.data.map((p) => (
              <tr key={p.id} className={p.enabled ? '' : 'disabled'}>
                <td>
                  <Link to={`/guardrails/${p.id}`}>{p.name}</Link>
                  {p.description && <div className="muted small truncate">{p.description}</div>}
                </td>
                <td>
                  <DecisionBadge decision={p.decision} />
                </td>
                <td className="mono small truncate" title={p.rule}>
                  {p.rule}
                </td>
                <td className="num">v{p.version}</td>
                <td>{relative(p.updatedAt)}</td>
                <td>
                  <EnableToggle policy={p} disabled={!admin} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Enable / disable switch of a policy (admin). */
export function EnableToggle({ policy, disabled }: { policy: PolicyView; disabled?: boolean }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (enable: boolean) =>
      api<PolicyView>(`/v1/policies/${policy.id}/${enable ? 'enable' : 'disable'}`, { method: 'POST' }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['policies'] });
      void qc.invalidateQueries({ queryKey: ['policy', policy.id] });
    },
  });
  return (
    <label
      className="switch"
      title={m.error ? (m.error as Error).message : policy.enabled ? 'Enabled' : 'Disabled'}
    >
      <input
        type="checkbox"
        aria-label={`Enable ${policy.name}`}
        checked={m.isPending ? !policy.enabled : policy.enabled}
        disabled={disabled || m.isPending}
        onChange={(e) => m.mutate(e.target.checked)}
      />
      <span className="slider" />
    </label>
  );
}

function Insights() {
  const [range, setRange] = useState<keyof typeof RANGES>('24h');
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  const from = new Date(to.getTime() - RANGES[range].ms);
  const query = { from: from.toISOString(), to: to.toISOString(), bucket: RANGES[range].bucket };
  const decisions = useQuery({
    queryKey: ['stats', 'decisions', range],
    queryFn: async () => decisionBuckets(await api('/v1/stats/decisions', { query })),
    retry: false,
  });
  const top = useQuery({
    queryKey: ['stats', 'top-policies', range],
    queryFn: async () =>
      topPolicies(await api('/v1/stats/top-policies', { query: { from: query.from, to: query.to } })),
    retry: false,
  });
  const missing = (e: unknown) => e instanceof ApiError && e.status === 404;
  return (
    <section className="insights">
      <div className="row spread">
        <h2>Decisions</h2>
        <div className="segmented">
          {(Object.keys(RANGES) as (keyof typeof RANGES)[]).map((r) => (
            <button key={r} className={r === range ? 'active' : ''} onClick={() => setRange(r)}>
              {r}
            </button>
          ))}
        </div>
      </div>
      <div className="two-col charts">
        <div className="card">
          <div className="label">Guard decisions over time</div>
          {decisions.data && decisions.data.length > 0 ? (
            <DecisionsChart data={decisions.data} />
          ) : decisions.isLoading ? (
            <Loading />
          ) : missing(decisions.error) ? (
            <div className="muted small">The decisions statistics are not available on this server yet.</div>
          ) : decisions.error ? (
            <ErrorBox error={decisions.error} />
          ) : (
            <div className="muted small">No guard evaluation in this window.</div>
          )}
        </div>
        <div className="card">
          <div className="label">Top matched policies</div>
          {top.data && top.data.length > 0 ? (
            <TopPoliciesChart data={top.data} />
          ) : top.isLoading ? (
            <Loading />
          ) : missing(top.error) ? (
            <div className="muted small">The policy statistics are not available on this server yet.</div>
          ) : top.error ? (
            <ErrorBox error={top.error} />
          ) : (
            <div className="muted small">No policy matched in this window.</div>
          )}
        </div>
      </div>
    </section>
  );
}
