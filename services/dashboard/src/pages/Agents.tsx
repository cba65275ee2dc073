import { Link } from 'react-router';
import { EmptyState, ErrorBox, Loading, PageHeader, QuickStart } from '../components/ui';
import { relative } from '../lib/format';
import { useAgents } from './agents-data';

/** Every agent that registered: identity, versions, first and last seen. */
export default function Agents() {
  const q = useAgents();
  return (
    <div className="page">
      <PageHeader title="Agents" subtitle="Agents register with the client; each release is a version." />
      {q.isLoading && <Loading />}
      <ErrorBox error={q.error} />
      {q.data && q.data.length === 0 && (
        <EmptyState title="No agent has registered yet">
          <QuickStart />
        </EmptyState>
      )}
      <div className="grid cards">
        {q.data?.map((a) => (
          <Link key={a.id} to={`/agents/${a.id}`} className="card agent-card">
            <div className="agent-name">{a.name ?? a.key}</div>
            <div className="muted small mono">{a.key}</div>
            {a.description && <p className="small">{a.description}</p>}
            <div className="kv small">
              <span>versions</span>
              <strong>{a.versions.length}</strong>
              <span>latest</span>
              <strong className="mono">{a.versions[0]?.version ?? '—'}</strong>
              <span>first seen</span>
              <strong>{relative(a.createdAt)}</strong>
              <span>last seen</span>
              <strong>{relative(a.lastSeenAt)}</strong>
            </div>
          </Link>
        ))}
      </div>
    </div>
  );
}
