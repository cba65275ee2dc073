import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { diffLines } from 'diff';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { can, useMe } from '../api/auth';
import { api, ApiError } from '../api/client';
import type { Backtest, Dry, PolicyInput, PolicyVersionView, PolicyView } from '../api/types';
import { ConditionTree } from '../components/ConditionTree';
import { DecisionBadge, ErrorBox, JsonView, Loading, PageHeader, Tabs } from '../components/ui';
import { DECISIONS } from '../lib/events';
import { dateTime, isoToLocalInput, localInputToIso, preview, shortId } from '../lib/format';
import { newPolicy } from '../lib/policy';
import { useRuleText } from '../lib/policy-operators';
import { EnableToggle } from './Guardrails';

function inputOf(p: PolicyView | PolicyVersionView): PolicyInput {
  return {
    name: p.name,
    description: p.description ?? '',
    enabled: p.enabled,
    decision: p.decision,
    match: p.match,
    ...(p.approval ? { approval: p.approval } : {}),
  };
}

/** The body sent: empty description left out, approval only for require_approval. */
function bodyOf(d: PolicyInput): PolicyInput {
  const { description, approval, ...rest } = d;
  return {
    ...rest,
    ...(description ? { description } : {}),
    ...(d.decision === 'require_approval' && approval ? { approval } : {}),
  };
}

interface LocationState {
  draft?: PolicyInput;
  backtest?: boolean;
  from?: string;
}

/**
 * Create or edit a policy: form for the condition tree or raw JSON, the API's validation messages
 * at their paths, versions with a diff, enable/disable, dry run on a sample call and backtest over
 * the stored calls.
 */
export default function PolicyEditor() {
  const { policyId } = useParams();
  const location = useLocation();
  const state = (location.state ?? {}) as LocationState;
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { user } = useMe();
  const admin = can(user?.role, 'admin');
  const existing = useQuery({
    queryKey: ['policy', policyId],
    queryFn: () => api<PolicyView>(`/v1/policies/${policyId}`),
    enabled: !!policyId,
  });
  const [draft, setDraft] = useState<PolicyInput>(() => state.draft ?? newPolicy());
  const [loadedVersion, setLoadedVersion] = useState<number | null>(null);
  useEffect(() => {
    if (existing.data && existing.data.version !== loadedVersion) {
      setDraft(inputOf(existing.data));
      setLoadedVersion(existing.data.version);
    }
  }, [existing.data, loadedVersion]);
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [side, setSide] = useState<'dry' | 'backtest' | 'versions'>(state.backtest ? 'backtest' : 'dry');
  const save = useMutation({
    mutationFn: async () => {
      const body = bodyOf(draft);
      return policyId
        ? api<PolicyView>(`/v1/policies/${policyId}`, {
            method: 'PUT',
            body: { ...body, expectedVersion: existing.data?.version },
          })
        : api<PolicyView>('/v1/policies', { method: 'POST', body });
    },
    onSuccess: (p) => {
      void qc.invalidateQueries({ queryKey: ['policies'] });
      qc.setQueryData(['policy', p.id], p);
      void qc.invalidateQueries({ queryKey: ['policy-versions', p.id] });
      if (!policyId) navigate(`/guardrails/${p.id}`, { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () => api(`/v1/policies/${policyId}`, { method: 'DELETE' }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['policies'] });
      navigate('/guardrails');
    },
  });
  const errors = useMemo(() => {
    const m = new Map<string, string>();
    if (save.error instanceof ApiError) for (const e of save.error.errors) m.set(e.path, e.message);
    return m;
  }, [save.error]);
  const rule = useRuleText(bodyOf(draft));
  if (policyId && existing.isLoading) return <Loading />;
  if (policyId && existing.error) return <ErrorBox error={existing.error} />;
  const set = (patch: Partial<PolicyInput>) => setDraft((d) => ({ ...d, ...patch }));
  const fieldErr = (p: string) => errors.get(p) && <div className="field-error">{errors.get(p)}</div>;
  return (
    <div className="page policy-editor">
      <PageHeader
        title={policyId ? (existing.data?.name ?? 'Policy') : 'New policy'}
        subtitle={
          <>
            <Link to="/guardrails">Guardrails</Link>
            {existing.data && (
              <>
                {' '}
                · v{existing.data.version} · updated {dateTime(existing.data.updatedAt)}
              </>
            )}
            {state.from && <> · from the recommendation “{state.from}”</>}
          </>
        }
        actions={
          <>
            {existing.data && <EnableToggle policy={existing.data} disabled={!admin} />}
            {policyId && admin && (
              <button
                className="btn ghost"
                onClick={() => {
                  if (window.confirm('Delete this policy? Its versions and audit stay.')) remove.mutate();
                }}
              >
                Delete
              </button>
            )}
            {admin && (
              <button className="btn primary" onClick={() => save.mutate()} disabled={save.isPending}>
                {save.isPending ? 'Saving…' : policyId ? 'Save new version' : 'Create policy'}
              </button>
            )}
          </>
        }
      />
      {save.isSuccess && <div className="ok-box">Saved as version {save.data.version}.</div>}
      <ErrorBox error={save.error ?? remove.error} />
      <div className="editor-grid">
        <section className="card">
          <Tabs
            tabs={[
              { id: 'form', label: 'Form' },
              { id: 'json', label: 'JSON' },
            ]}
            value={mode}
            onChange={setMode}
          />
          {mode === 'form' ? (
            <div className="form">
              <label>
                Name
                <input
                  name="name"
                  value={draft.name}
                  onChange={(e) => set({ name: e.target.value })}
                  placeholder="block destructive shell"
                />
                {fieldErr('name')}
              </label>
              <label>
                Description
                <input
                  value={draft.description ?? ''}
                  onChange={(e) => set({ description: e.target.value })}
                  placeholder="why this policy exists"
                />
                {fieldErr('description')}
              </label>
              <div className="row">
                <label className="inline">
                  Decision
                  <select
                    name="decision"
                    value={draft.decision}
                    onChange={(e) => set({ decision: e.target.value as PolicyInput['decision'] })}
                  >
                    {DECISIONS.map((d) => (
                      <option key={d} value={d}>
                        {d.replace('_', ' ')}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="inline check">
                  <input
                    type="checkbox"
                    checked={draft.enabled}
                    onChange={(e) => set({ enabled: e.target.checked })}
                  />{' '}
                  Enabled
                </label>
              </div>
              {draft.decision === 'require_approval' && (
                <div className="row">
                  <label className="inline">
                    Wait up to (s)
                    <input
                      type="number"
                      min={1}
                      value={draft.approval?.timeoutSeconds ?? 300}
                      onChange={(e) =>
                        set({
                          approval: {
                            onTimeout: draft.approval?.onTimeout ?? 'deny',
                            timeoutSeconds: Number(e.target.value),
                          },
                        })
                      }
                    />
                  </label>
                  <label className="inline">
                    then
                    <select
                      value={draft.approval?.onTimeout ?? 'deny'}
                      onChange={(e) =>
                        set({
                          approval: {
                            timeoutSeconds: draft.approval?.timeoutSeconds ?? 300,
                            onTimeout: e.target.value as 'deny' | 'approve',
                          },
                        })
                      }
                    >
                      <option value="deny">deny</option>
                      <option value="approve">approve</option>
                    </select>
                  </label>
                  {fieldErr('approval.timeoutSeconds')}
                </div>
              )}
              <div className="label">Matches when</div>
              <ConditionTree node={draft.match} onChange={(match) => set({ match })} errors={errors} />
              {fieldErr('match')}
              <div className="muted small mono rule" data-testid="rule-text">
                {rule ?? (rule === null ? 'The conditions are not complete yet.' : '…')}
              </div>
            </div>
          ) : (
            <JsonEditor value={draft} onChange={setDraft} />
          )}
          {errors.size > 0 && (
            <ul className="error-list">
              {[...errors].map(([p, m]) => (
                <li key={p}>
                  <code>{p}</code> {m}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section className="card">
          <Tabs
            tabs={[
              { id: 'dry', label: 'Dry run' },
              { id: 'backtest', label: 'Backtest' },
              ...(policyId ? [{ id: 'versions' as const, label: 'Versions' }] : []),
            ]}
            value={side}
            onChange={setSide}
          />
          {side === 'dry' && <DryRun policy={bodyOf(draft)} />}
          {side === 'backtest' && <BacktestPanel policy={bodyOf(draft)} autoRun={!!state.backtest} />}
          {side === 'versions' && policyId && <Versions policyId={policyId} />}
        </section>
      </div>
    </div>
  );
}

function JsonEditor({ value, onChange }: { value: PolicyInput; onChange: (v: PolicyInput) => void }) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2));
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="json-editor">
      <textarea
        aria-label="Policy JSON"
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const v = JSON.parse(e.target.value) as PolicyInput;
            if (!v || typeof v !== 'object' || !v.match) throw new Error('a policy needs "match"');
            onChange(v);
            setError(null);
          } catch (err) {
            setError((err as Error).message);
          }
        }}
      />
      {error && <div className="field-error">{error}</div>}
    </div>
  );
}

const SAMPLE = JSON.stringify(
  { tool: { name: 'bash' }, arguments: { command: 'rm -rf /tmp/cache' }, riskLevel: 'high' },
  null,
  2,
);

function DryRun({ policy }: { policy: PolicyInput }) {
  const [text, setText] = useState(SAMPLE);
  const run = useMutation({
    mutationFn: () =>
      api<Dry>('/v1/policies/dry-run', { method: 'POST', body: { policy, input: JSON.parse(text) } }),
  });
  return (
    <div className="stack">
      <p className="muted small">
        A sample call: tool, arguments, resource, riskLevel, action, agent.key. Nothing is stored.
      </p>
      <textarea
        aria-label="Sample input"
        className="code"
        rows={8}
        value={text}
        onChange={(e) => setText(e.target.value)}
        spellCheck={false}
      />
      <button className="btn" onClick={() => run.mutate()} disabled={run.isPending}>
        Try it
      </button>
      <ErrorBox error={run.error} />
      {run.data && (
        <div className={run.data.matched ? 'result matched' : 'result'} data-testid="dry-run-result">
          {run.data.matched ? (
            <>
              <strong>Matches</strong> → <DecisionBadge decision={run.data.decision} />
              <div className="small">{run.data.reason}</div>
            </>
          ) : (
            <strong>Does not match</strong>
          )}
          <div className="muted small mono">{run.data.policy.description}</div>
        </div>
      )}
    </div>
  );
}

function BacktestPanel({ policy, autoRun }: { policy: PolicyInput; autoRun: boolean }) {
  const [from, setFrom] = useState(() => new Date(Date.now() - 30 * 86_400_000).toISOString());
  const [to, setTo] = useState('');
  const [pages, setPages] = useState<Backtest[]>([]);
  const run = useMutation({
    mutationFn: (cursor?: string) =>
      api<Backtest>('/v1/policies/backtest', {
        method: 'POST',
        body: {
          policy,
          from: from || undefined,
          to: to || undefined,
          limit: 50,
          ...(cursor ? { cursor } : {}),
        },
      }),
    onSuccess: (b, cursor) => setPages((p) => (cursor ? [...p, b] : [b])),
  });
  useEffect(() => {
    if (autoRun) run.mutate(undefined);
  }, []);
  const first = pages[0];
  const last = pages[pages.length - 1];
  const matches = pages.flatMap((p) => p.items);
  return (
    <div className="stack">
      <p className="muted small">
        Runs this draft over the tool calls already stored: what would it have matched?
      </p>
      <div className="row">
        <label className="inline">
          From
          <input
            type="datetime-local"
            value={isoToLocalInput(from)}
            onChange={(e) => setFrom(localInputToIso(e.target.value) ?? '')}
          />
        </label>
        <label className="inline">
          To
          <input
            type="datetime-local"
            value={isoToLocalInput(to)}
            onChange={(e) => setTo(localInputToIso(e.target.value) ?? '')}
          />
        </label>
        <button className="btn" onClick={() => run.mutate(undefined)} disabled={run.isPending}>
          {run.isPending && !pages.length ? 'Running…' : 'Run backtest'}
        </button>
      </div>
      <ErrorBox error={run.error} />
      {first && (
        <div data-testid="backtest-result">
          <div className="figures">
            <div className="figure">
              <div className="value">{first.scanned.toLocaleString()}</div>
              <div className="muted small">calls scanned</div>
            </div>
            <div className="figure">
              <div className="value">{first.matched.toLocaleString()}</div>
              <div className="muted small">matched</div>
            </div>
            {DECISIONS.map((d) => (
              <div className="figure" key={d}>
                <div className="value">{first.byDecision[d].toLocaleString()}</div>
                <div className="muted small">would {d.replace('_', ' ')}</div>
              </div>
            ))}
          </div>
          {first.truncated && (
            <div className="notice small">
              The window held more calls than one backtest reads; counts cover the first ones.
            </div>
          )}
          <div className="table-scroll">
            <table className="table compact">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Agent</th>
                  <th>Tool</th>
                  <th>Arguments</th>
                  <th>Session</th>
                </tr>
              </thead>
              <tbody>
                {matches.map((m) => (
                  <tr key={m.eventId} title={m.reason}>
                    <td>{dateTime(m.time)}</td>
                    <td>{m.agentKey ?? shortId(m.agentId)}</td>
                    <td className="mono">{m.toolName}</td>
                    <td>
                      {/* A cell's max-width is ignored by table layout: the box inside truncates. */}
                      <div className="mono small truncate" title={preview(m.arguments, 400)}>
                        {preview(m.arguments, 80)}
                      </div>
                    </td>
                    <td>
                      <Link to={`/sessions/${m.sessionId}?event=${m.eventId}`}>{shortId(m.sessionId)}</Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {matches.length === 0 && <div className="muted small">No stored call matches.</div>}
          {last?.nextCursor && (
            <button className="btn" onClick={() => run.mutate(last.nextCursor!)} disabled={run.isPending}>
              More matches
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function Versions({ policyId }: { policyId: string }) {
  const q = useQuery({
    queryKey: ['policy-versions', policyId],
    queryFn: async () =>
      (await api<{ items: PolicyVersionView[] }>(`/v1/policies/${policyId}/versions`)).items,
  });
  const [a, setA] = useState<number | null>(null);
  const [b, setB] = useState<number | null>(null);
  if (q.isLoading) return <Loading />;
  if (q.error) return <ErrorBox error={q.error} />;
  const items = q.data ?? [];
  const newer = items.find((v) => v.version === (b ?? items[0]?.version));
  const older = items.find((v) => v.version === (a ?? items[1]?.version ?? items[0]?.version));
  const text = (v?: PolicyVersionView) => (v ? JSON.stringify(inputOf(v), null, 2) + '\n' : '');
  const parts = diffLines(text(older), text(newer));
  return (
    <div className="stack">
      <div className="table-scroll">
        <table className="table compact">
          <thead>
            <tr>
              <th>Version</th>
              <th>Decision</th>
              <th>Enabled</th>
              <th>When</th>
              <th>By</th>
              <th>Compare</th>
            </tr>
          </thead>
          <tbody>
            {items.map((v) => (
              <tr key={v.version}>
                <td>v{v.version}</td>
                <td>
                  <DecisionBadge decision={v.decision} />
                </td>
                <td>{v.enabled ? 'yes' : 'no'}</td>
                <td>{dateTime(v.createdAt)}</td>
                <td className="small">{v.createdBy}</td>
                <td className="row tight">
                  <label className="inline check small">
                    <input
                      type="radio"
                      name="older"
                      checked={older?.version === v.version}
                      onChange={() => setA(v.version)}
                    />{' '}
                    old
                  </label>
                  <label className="inline check small">
                    <input
                      type="radio"
                      name="newer"
                      checked={newer?.version === v.version}
                      onChange={() => setB(v.version)}
                    />{' '}
                    new
                  </label>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {older && newer && (
        <div>
          <div className="label">
            v{older.version} → v{newer.version}
          </div>
          <pre className="diff">
            {parts.map((p, i) => (
              <span key={i} className={p.added ? 'add' : p.removed ? 'del' : ''}>
                {p.value
                  .replace(/\n$/, '')
                  .split('\n')
                  .map((l) => `${p.added ? '+ ' : p.removed ? '- ' : '  '}${l}`)
                  .join('\n') + '\n'}
              </span>
            ))}
          </pre>
        </div>
      )}
      {items.length === 1 && <JsonView value={inputOf(items[0]!)} maxHeight={200} />}
    </div>
  );
}
