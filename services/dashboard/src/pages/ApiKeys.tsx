import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ApiKey } from '../api/types';
import { Badge, EmptyState, ErrorBox, Loading, PageHeader } from '../components/ui';
import { dateTime, relative } from '../lib/format';

const SCOPES = ['ingest', 'read', 'admin'] as const;

function listOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  return ((body as { items?: T[] })?.items ?? []) as T[];
}

/**
 * API keys of a project (admins there): create (the secret is shown once) and revoke. Without
 * `projectId`, the current project's (the Admin › API keys page); with it, that project's (the
 * Projects page), with `embedded` leaving out the page header.
 */
export default function ApiKeys({ projectId, embedded }: { projectId?: string; embedded?: boolean }) {
  const qc = useQueryClient();
  const base = `/v1/projects/${projectId ?? 'current'}/api-keys`;
  const queryKey = ['api-keys', projectId ?? 'current'];
  const q = useQuery({
    queryKey,
    queryFn: async () => listOf<ApiKey>(await api(base)),
  });
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['ingest', 'read']);
  const create = useMutation({
    mutationFn: () =>
      api<ApiKey & { secret: string }>(base, {
        method: 'POST',
        body: { name, scopes },
      }),
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`${base}/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const secret = create.data?.secret;
  return (
    <div className={embedded ? undefined : 'page'}>
      {!embedded && (
        <PageHeader
          title="API keys"
          subtitle="Agents send events and ask the guardrails with a key; scripts read with one."
        />
      )}
      <form className="card row" onSubmit={submit}>
        <input
          placeholder="Key name, e.g. billing-agent prod"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          className="grow"
          aria-label="Key name"
        />
        {SCOPES.map((s) => (
          <label key={s} className="inline check">
            <input
              type="checkbox"
              checked={scopes.includes(s)}
              onChange={(e) =>
                setScopes((cur) => (e.target.checked ? [...cur, s] : cur.filter((x) => x !== s)))
              }
            />
            {s}
          </label>
        ))}
        <button className="btn primary" disabled={create.isPending || scopes.length === 0}>
          Create key
        </button>
      </form>
      <ErrorBox error={create.error ?? revoke.error} />
      {secret && (
        <div className="card secret" role="status">
          <strong>Copy this key now — it is not shown again.</strong>
          <pre className="mono">{secret}</pre>
          <div className="muted small">
            Set it as <code>WARDEN_API_KEY</code> where the agent runs.
          </div>
        </div>
      )}
      {q.isLoading && <Loading />}
      <ErrorBox error={q.error} />
      {q.data && q.data.length === 0 && <EmptyState title="No API keys" />}
      {q.data && q.data.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scopes</th>
              <th>Created</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {q.data.map((k) => (
              <tr key={k.id} className={k.revokedAt ? 'disabled' : ''}>
                <td>{k.name ?? '—'}</td>
                <td className="mono">{k.prefix ? `${k.prefix}…` : k.id.slice(0, 8)}</td>
                <td>
                  {k.scopes.map((s) => (
                    <Badge key={s}>{s}</Badge>
                  ))}
                </td>
                <td>{dateTime(k.createdAt)}</td>
                <td>{relative(k.lastUsedAt)}</td>
                <td>
                  {k.revokedAt ? (
                    <span className="muted small">revoked {relative(k.revokedAt)}</span>
                  ) : (
                    <button
                      className="btn small bad"
                      onClick={() => {
                        if (window.confirm(`Revoke "${k.name ?? k.id}"? Agents using it stop at once.`))
                          revoke.mutate(k.id);
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
