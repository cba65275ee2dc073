import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, ApiError } from '../api/client';
import type { AgentDetail as AgentDetailT } from '../api/types';
import { AgentUsage } from '../components/AgentUsage';
import { VersionCompare } from '../components/VersionCompare';
import { Badge, DecisionBadge, ErrorBox, JsonView, Loading, PageHeader } from '../components/ui';
import { dateTime, num, relative } from '../lib/format';

/**
 * One agent: its usage (LLM tokens, cost, latency, event and error rates over time), versions with
 * metadata, declared capabilities, first/last seen, sessions and decisions per version.
 */
export default function AgentDetail() {
  const { agentId = '' } = useParams();
  const q = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => api<AgentDetailT>(`/v1/agents/${agentId}`),
    retry: false,
  });
  const agent: AgentDetailT | undefined = q.data;
  if (!agent) return q.isLoading ? <Loading /> : <ErrorBox error={q.error ?? new Error('agent not found')} />;
  return (
    <div className="page">
      <PageHeader
        title={agent.name ?? agent.key}
        subtitle={
          <>
            <span className="mono">{agent.key}</span> · first seen{' '}
            {dateTime(agent.firstSeenAt ?? agent.createdAt)} · last seen {relative(agent.lastSeenAt)}
          </>
        }
        actions={
          <Link className="btn" to={`/sessions?agentId=${agent.id}`}>
            Sessions of this agent
          </Link>
        }
      />
      {agent.description && <p>{agent.description}</p>}
      {q.error instanceof ApiError && q.error.status !== 404 && <ErrorBox error={q.error} />}
      <AgentUsage agentId={agent.id} />
      {agent.versions.length >= 2 && <VersionCompare agent={agent} />}
      <h2>Versions</h2>
      <div className="stack">
        {agent.versions.map((v) => {
          const sessions = v.sessions;
          return (
            <section key={v.id} className="card">
              <div className="row spread">
                <div>
                  <strong className="mono">{v.version}</strong>{' '}
                  <span className="muted small">since {dateTime(v.firstSeenAt ?? v.createdAt)}</span>
                </div>
                <div className="row">
                  {sessions !== undefined && (
                    <Link to={`/sessions?agentId=${agent.id}&agentVersionId=${v.id}`}>
                      {num(sessions)} sessions
                    </Link>
                  )}
                  {v.decisions &&
                    Object.entries(v.decisions).map(([d, n]) => (
                      <span key={d} className="row tight">
                        <DecisionBadge decision={d} /> {num(n)}
                      </span>
                    ))}
                </div>
              </div>
              <div className="two-col">
                <div>
                  <div className="label">Capabilities</div>
                  {v.capabilities.length === 0 ? (
                    <span className="muted small">none declared</span>
                  ) : (
                    <ul className="caps">
                      {v.capabilities.map((cap, i) => {
                        return (
                          <li key={i}>
                            <span className="mono">{cap.name}</span> <Badge>{cap.kind}</Badge>
                            {cap.riskLevel && (
                              <Badge
                                tone={
                                  cap.riskLevel === 'high' || cap.riskLevel === 'critical' ? 'bad' : 'neutral'
                                }
                              >
                                {cap.riskLevel}
                              </Badge>
                            )}
                            {cap.description && <span className="muted small"> {cap.description}</span>}
                          </li>
                        );
                      })}
                    </ul>
                  )}
                </div>
                <div>
                  <div className="label">Metadata</div>
                  <JsonView value={v.metadata} maxHeight={200} />
                </div>
              </div>
            </section>
          );
        })}
      </div>
    </div>
  );
}
