import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import type { ActivityStats, LlmUsage } from '../api/types';
import { duration, num } from '../lib/format';
import { tokens, usagePoints, usd } from '../lib/llm';
import { ErrorBox, Loading } from './ui';
import { ErrorRateChart, EventRateChart, LatencyChart, TokensCostChart } from './UsageCharts';

const WINDOWS = [
  { key: '24h', label: 'last 24 hours', spanMs: 86_400_000, bucket: 'hour' },
  { key: '7d', label: 'last 7 days', spanMs: 7 * 86_400_000, bucket: 'day' },
  { key: '30d', label: 'last 30 days', spanMs: 30 * 86_400_000, bucket: 'day' },
] as const;

function Figure({
  label,
  value,
  testId,
  bad,
}: {
  label: string;
  value: string;
  testId: string;
  bad?: boolean;
}) {
  return (
    <div className={bad ? 'figure bad' : 'figure'} data-testid={testId}>
      <div className="value">{value}</div>
      <div className="muted small">{label}</div>
    </div>
  );
}

/**
 * The agent page's usage (docs/architecture.md#llm-calls): over a window (24 hours by hour, 7 or 30
 * days by day), the totals of its LLM calls, charts of tokens and cost, latency percentiles, event
 * rate and error rate (`GET /v1/llm/usage` and `GET /v1/stats/activity`), and a table per model.
 */
export function AgentUsage({ agentId }: { agentId: string }) {
  const [key, setKey] = useState<(typeof WINDOWS)[number]['key']>('24h');
  const w = WINDOWS.find((x) => x.key === key)!;
  // The window ends now (rounded to the minute so the query key stays put between renders).
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000).toISOString();
  const from = new Date(new Date(to).getTime() - w.spanMs).toISOString();
  const query = { agentId, from, to, bucket: w.bucket };
  const usage = useQuery({
    queryKey: ['llm-usage', query],
    queryFn: () => api<LlmUsage>('/v1/llm/usage', { query }),
  });
  const activity = useQuery({
    queryKey: ['activity', query],
    queryFn: () => api<ActivityStats>('/v1/stats/activity', { query }),
  });
  const error = usage.error ?? activity.error;
  const points = usagePoints(usage.data, activity.data);
  const t = usage.data?.totals;
  return (
    <section className="agent-usage" data-testid="agent-usage">
      <div className="row spread">
        <h2>Usage</h2>
        <label className="row tight small">
          window{' '}
          <select
            value={key}
            onChange={(e) => setKey(e.target.value as typeof key)}
            aria-label="usage window"
          >
            {WINDOWS.map((x) => (
              <option key={x.key} value={x.key}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && <ErrorBox error={error} />}
      {!usage.data || !activity.data ? (
        !error && <Loading what="Loading usage" />
      ) : (
        <>
          <div className="figures">
            <Figure label="LLM calls" value={num(t!.calls)} testId="usage-calls" />
            <Figure
              label="tokens in / out"
              value={`${tokens(t!.inputTokens)} / ${tokens(t!.outputTokens)}`}
              testId="usage-tokens"
            />
            <Figure label="cost" value={usd(t!.costUsd)} testId="usage-cost" />
            {t!.unpricedCalls > 0 && (
              <Figure label="calls without a price" value={num(t!.unpricedCalls)} testId="usage-unpriced" />
            )}
            <Figure label="p95 latency" value={duration(t!.latencyMs.p95)} testId="usage-p95" />
            <Figure
              label="failed LLM calls"
              value={num(t!.errors)}
              bad={t!.errors > 0}
              testId="usage-errors"
            />
          </div>
          <div className="chart-grid">
            <TokensCostChart data={points} bucket={w.bucket} />
            <LatencyChart data={points} bucket={w.bucket} />
            <EventRateChart data={points} bucket={w.bucket} />
            <ErrorRateChart data={points} bucket={w.bucket} />
          </div>
          {usage.data.models.length > 0 && (
            <table className="table compact" aria-label="usage per model" data-testid="usage-models">
              <thead>
                <tr>
                  <th>model</th>
                  <th>provider</th>
                  <th>calls</th>
                  <th>tokens in</th>
                  <th>tokens out</th>
                  <th>cost</th>
                  <th>p50</th>
                  <th>p95</th>
                  <th>p99</th>
                  <th>errors</th>
                </tr>
              </thead>
              <tbody>
                {usage.data.models.map((m) => (
                  <tr key={`${m.provider ?? ''}/${m.model}`}>
                    <td className="mono">{m.model}</td>
                    <td>{m.provider ?? '—'}</td>
                    <td>{num(m.calls)}</td>
                    <td>{num(m.inputTokens)}</td>
                    <td>{num(m.outputTokens)}</td>
                    <td title={m.unpricedCalls > 0 ? `${m.unpricedCalls} calls without a price` : undefined}>
                      {usd(m.costUsd)}
                    </td>
                    <td>{duration(m.latencyMs.p50)}</td>
                    <td>{duration(m.latencyMs.p95)}</td>
                    <td>{duration(m.latencyMs.p99)}</td>
                    <td>{num(m.errors)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
