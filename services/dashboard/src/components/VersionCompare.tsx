import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import type { AgentDetail, VersionComparison } from '../api/types';
import { DecisionBadge, ErrorBox, Loading } from './ui';
import { dateTime, duration, num, shortId } from '../lib/format';
import { tokens, usd } from '../lib/llm';

const WINDOWS = [
  { days: 1, label: 'last 24 hours' },
  { days: 7, label: 'last 7 days' },
  { days: 30, label: 'last 30 days' },
  { days: 90, label: 'last 90 days' },
];
const DAY_MS = 86_400_000;

type Rate = {
  successes: number;
  n: number;
  rate: number | null;
  interval: { low: number; high: number } | null;
};

const pct = (v: number | null | undefined) => (v == null ? '—' : `${(v * 100).toFixed(1)} %`);
const signedPct = (v: number | null | undefined) =>
  v == null ? '—' : `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v * 100).toFixed(1)} pp`;
const dec = (v: number | null | undefined) => (v == null ? '—' : v.toFixed(2));

/** `3/4 · 75.0 % [30.1 %, 95.4 %]`: a share of sessions with its 95 % Wilson interval. */
function RateCell({ r }: { r: Rate | null | undefined }) {
  if (!r || r.n === 0) return <span className="muted">—</span>;
  return (
    <span>
      {r.successes}/{r.n} · <strong>{pct(r.rate)}</strong>{' '}
      {r.interval && (
        <span className="muted small">
          [{pct(r.interval.low)}, {pct(r.interval.high)}]
        </span>
      )}
    </span>
  );
}

/**
 * The agent page's version comparison (docs/architecture.md#comparing-versions): pick 2–5 versions
 * (the first picked is the baseline) and a window; shows `GET /v1/agents/{agentId}/compare` side by
 * side, and each later version's differences from the baseline with their 95 % intervals and links
 * to example sessions.
 */
export function VersionCompare({ agent }: { agent: AgentDetail }) {
  const [picked, setPicked] = useState<string[]>([]);
  const [days, setDays] = useState(30);
  const [asked, setAsked] = useState<{ versions: string[]; from: string; to: string } | null>(null);
  const q = useQuery({
    queryKey: ['compare', agent.id, asked],
    enabled: asked !== null,
    retry: false,
    queryFn: () =>
      api<VersionComparison>(
        `/v1/agents/${agent.id}/compare?versions=${asked!.versions.join(',')}&from=${encodeURIComponent(asked!.from)}&to=${encodeURIComponent(asked!.to)}`,
      ),
  });
  const toggle = (id: string) =>
    setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : p.length < 5 ? [...p, id] : p));
  const compare = () => {
    const to = new Date();
    setAsked({
      versions: picked,
      from: new Date(to.getTime() - days * DAY_MS).toISOString(),
      to: to.toISOString(),
    });
  };
  const label = (id: string) => agent.versions.find((v) => v.id === id)?.version ?? shortId(id);

  return (
    <section className="card" aria-label="Compare versions">
      <h2>Compare versions</h2>
      <div className="row">
        {agent.versions.map((v) => (
          <label key={v.id} className="inline check">
            <input
              type="checkbox"
              checked={picked.includes(v.id)}
              onChange={() => toggle(v.id)}
              aria-label={`compare version ${v.version}`}
            />
            <span className="mono">{v.version}</span>
            {picked[0] === v.id && <span className="muted small">(baseline)</span>}
          </label>
        ))}
        <select aria-label="comparison window" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {WINDOWS.map((w) => (
            <option key={w.days} value={w.days}>
              {w.label}
            </option>
          ))}
        </select>
        <button className="btn primary" disabled={picked.length < 2} onClick={compare}>
          Compare
        </button>
      </div>
      {picked.length < 2 && (
        <p className="muted small">Pick 2 to 5 versions; the first one picked is the baseline.</p>
      )}
      {q.isFetching && <Loading what="Comparing" />}
      {q.error && <ErrorBox error={q.error} />}
      {q.data && !q.isFetching && <ComparisonTables data={q.data} label={label} />}
    </section>
  );
}

function ComparisonTables({ data, label }: { data: VersionComparison; label: (id: string) => string }) {
  const vs = data.versions;
  const scoreNames = [
    ...new Set(vs.flatMap((v) => v.scores.map((s) => `${s.name}\u0000${s.dataType}`))),
  ].sort();
  const row = (title: string, cell: (v: VersionComparison['versions'][number]) => React.ReactNode) => (
    <tr key={title}>
      <th scope="row">{title}</th>
      {vs.map((v) => (
        <td key={v.versionId}>{cell(v)}</td>
      ))}
    </tr>
  );
  return (
    <div className="stack">
      <p className="muted small">
        Sessions started {dateTime(data.from)} – {dateTime(data.to)}. Rates: share of sessions with a 95 %
        Wilson interval; differences: 95 % Newcombe interval. {data.notes.join(' ')}
      </p>
      <table className="table compact" aria-label="version figures">
        <thead>
          <tr>
            <th />
            {vs.map((v, i) => (
              <th key={v.versionId} className="mono">
                {v.version}
                {i === 0 && <span className="muted small"> (baseline)</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {row('Sessions', (v) => num(v.sessions))}
          {scoreNames.map((key) => {
            const [name, type] = key.split('\u0000');
            const of = (v: (typeof vs)[number]) =>
              v.scores.find((s) => s.name === name && s.dataType === type);
            return type === 'boolean'
              ? row(`${name} (success)`, (v) => <RateCell r={of(v)?.success} />)
              : row(`${name} (mean)`, (v) => {
                  const s = of(v);
                  return s ? `${dec(s.mean)} (n=${s.n})` : '—';
                });
          })}
          {row('Tool calls / session', (v) => dec(v.toolCallsPerSession))}
          {row('Tool failures / session', (v) => dec(v.toolFailuresPerSession))}
          {row('Sessions with a block', (v) => (
            <RateCell r={v.blockedSessions} />
          ))}
          {row('Guardrail decisions', (v) => (
            <span className="row tight">
              {Object.entries(v.decisions).map(([d, n]) => (
                <span key={d} className="row tight">
                  <DecisionBadge decision={d} /> {num(n)}
                </span>
              ))}
            </span>
          ))}
          {row('Approvals (decided)', (v) => `${num(v.approvals.count)} (${num(v.approvals.decided)})`)}
          {row('Median approval wait', (v) =>
            v.approvals.medianWaitMs == null ? '—' : duration(v.approvals.medianWaitMs),
          )}
          {row('LLM cost (per session)', (v) =>
            v.cost ? (
              <span data-testid="compare-cost">
                {usd(v.cost.totalUsd)} ({usd(v.cost.perSessionUsd)})
                {v.cost.unpricedCalls > 0 && (
                  <span className="muted small"> + {num(v.cost.unpricedCalls)} calls without a price</span>
                )}
              </span>
            ) : (
              <span className="muted">no LLM calls</span>
            ),
          )}
          {row('LLM tokens in / out (per session)', (v) =>
            v.tokens ? (
              <span>
                {tokens(v.tokens.input)} / {tokens(v.tokens.output)} (
                {tokens(Math.round(v.tokens.perSession))})
              </span>
            ) : (
              <span className="muted">—</span>
            ),
          )}
        </tbody>
      </table>
      {data.differences.map((d) => (
        <table
          key={d.versionId}
          className="table compact"
          aria-label={`differences of ${label(d.versionId)}`}
        >
          <caption>
            <span className="mono">{label(d.versionId)}</span> −{' '}
            <span className="mono">{label(d.baselineVersionId)}</span>
          </caption>
          <thead>
            <tr>
              <th>Rate</th>
              <th>Difference</th>
              <th>95 % interval</th>
              <th>Example sessions</th>
            </tr>
          </thead>
          <tbody>
            {d.rates.map((r) => (
              <tr key={r.metric}>
                <td className="mono">
                  {r.metric === 'blockedSessions' ? 'sessions with a block' : r.metric.replace(/^score:/, '')}
                </td>
                <td>{signedPct(r.difference)}</td>
                <td>{r.interval ? `${signedPct(r.interval.low)} to ${signedPct(r.interval.high)}` : '—'}</td>
                <td>
                  {r.exampleSessionIds.length === 0 ? (
                    <span className="muted">—</span>
                  ) : (
                    <span className="row tight">
                      {r.exampleSessionIds.map((id) => (
                        <Link key={id} className="mono" to={`/sessions/${id}`} title={id}>
                          {/* UUIDv7s of one moment share their first characters: show the end. */}…
                          {id.slice(-8)}
                        </Link>
                      ))}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
