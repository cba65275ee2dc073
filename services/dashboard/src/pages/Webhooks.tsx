import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import type { WebhookDelivery, WebhookSubscription } from '../api/types';
import { Badge, EmptyState, ErrorBox, Loading, PageHeader } from '../components/ui';
import { dateTime, relative } from '../lib/format';

const EVENT_TYPES = [
  ['approval.requested', 'Approval requested'],
  ['approval.decided', 'Approval decided'],
  ['approval.expired', 'Approval expired'],
  ['guard.blocked', 'Call blocked'],
] as const;

interface Draft {
  url: string;
  eventTypes: string[];
  format: 'json' | 'slack';
  enabled: boolean;
}
const EMPTY: Draft = { url: '', eventTypes: EVENT_TYPES.map(([t]) => t), format: 'json', enabled: true };

/** The message of a field of a problem answer (`errors[].path`), for the form. */
function fieldError(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.errors.find((e) => e.path === path || e.path.startsWith(`${path}.`))?.message;
}

/**
 * Settings › Webhooks (admins; docs/operations.md#notifications): add, edit and delete the current
 * project's webhook subscriptions (the signing secret is shown once, at creation), send a test, and
 * see each one's delivery log (status, attempts, last status code or error, next attempt).
 */
export default function Webhooks() {
  const qc = useQueryClient();
  const queryKey = ['webhooks'];
  const q = useQuery({
    queryKey,
    queryFn: async () => (await api<{ items: WebhookSubscription[] }>('/v1/webhooks')).items,
  });
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () =>
      editing
        ? api<WebhookSubscription>(`/v1/webhooks/${editing}`, { method: 'PATCH', body: draft })
        : api<WebhookSubscription & { secret: string }>('/v1/webhooks', { method: 'POST', body: draft }),
    onSuccess: () => {
      setDraft(EMPTY);
      setEditing(null);
      void qc.invalidateQueries({ queryKey });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/v1/webhooks/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const secret = editing ? undefined : (save.data as { secret?: string } | undefined)?.secret;
  const toggle = (t: string, on: boolean) =>
    setDraft((d) => ({ ...d, eventTypes: on ? [...d.eventTypes, t] : d.eventTypes.filter((x) => x !== t) }));
  return (
    <div className="page">
      <PageHeader
        title="Webhooks"
        subtitle="Tell a URL (your service, or a Slack incoming webhook) when an approval waits, is decided or expires, and when a call is blocked."
      />
      <form
        className="card webhook-form"
        onSubmit={submit}
        aria-label={editing ? 'Edit webhook' : 'Add webhook'}
      >
        <div className="row">
          <input
            className="grow"
            placeholder="https://example.com/warden-webhook"
            aria-label="URL"
            value={draft.url}
            onChange={(e) => setDraft({ ...draft, url: e.target.value })}
            required
          />
          <select
            aria-label="Format"
            value={draft.format}
            onChange={(e) => setDraft({ ...draft, format: e.target.value as Draft['format'] })}
          >
            <option value="json">JSON</option>
            <option value="slack">Slack message</option>
          </select>
          <label className="inline check">
            <input
              type="checkbox"
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
            />
            enabled
          </label>
        </div>
        {fieldError(save.error, 'url') && <div className="field-error">{fieldError(save.error, 'url')}</div>}
        <div className="row">
          {EVENT_TYPES.map(([t, label]) => (
            <label key={t} className="inline check">
              <input
                type="checkbox"
                checked={draft.eventTypes.includes(t)}
                onChange={(e) => toggle(t, e.target.checked)}
              />
              {label}
            </label>
          ))}
        </div>
        {fieldError(save.error, 'eventTypes') && (
          <div className="field-error">{fieldError(save.error, 'eventTypes')}</div>
        )}
        <div className="row">
          <button className="btn primary" disabled={save.isPending || draft.eventTypes.length === 0}>
            {editing ? 'Save' : 'Add webhook'}
          </button>
          {editing && (
            <button
              type="button"
              className="btn"
              onClick={() => {
                setEditing(null);
                setDraft(EMPTY);
              }}
            >
              Cancel
            </button>
          )}
        </div>
      </form>
      <ErrorBox error={save.error ?? remove.error} />
      {secret && (
        <div className="card secret" role="status">
          <strong>Copy this signing secret now — it is not shown again.</strong>
          <pre className="mono">{secret}</pre>
          <div className="muted small">
            Verify each request's <code>webhook-signature</code> with it (Standard Webhooks).
          </div>
        </div>
      )}
      {q.isLoading && <Loading />}
      <ErrorBox error={q.error} />
      {q.data && q.data.length === 0 && <EmptyState title="No webhooks" />}
      {q.data?.map((s) => (
        <article key={s.id} className="card webhook" data-webhook-id={s.id}>
          <div className="row">
            <span className="mono grow">{s.url}</span>
            <Badge tone={s.enabled ? 'ok' : 'neutral'}>{s.enabled ? 'enabled' : 'disabled'}</Badge>
            <Badge>{s.format}</Badge>
          </div>
          <div className="row small">
            {s.eventTypes.map((t) => (
              <Badge key={t} tone="info">
                {t}
              </Badge>
            ))}
            <span className="muted grow">
              added {relative(s.createdAt)} by {s.createdBy}
            </span>
            <button className="btn small" onClick={() => setOpen(open === s.id ? null : s.id)}>
              {open === s.id ? 'Hide deliveries' : 'Deliveries'}
            </button>
            <TestButton id={s.id} onSent={() => setOpen(s.id)} />
            <button
              className="btn small"
              onClick={() => {
                setEditing(s.id);
                setDraft({ url: s.url, eventTypes: s.eventTypes, format: s.format, enabled: s.enabled });
              }}
            >
              Edit
            </button>
            <button
              className="btn small bad"
              onClick={() => {
                if (window.confirm(`Delete the webhook to ${s.url} and its delivery log?`))
                  remove.mutate(s.id);
              }}
            >
              Delete
            </button>
          </div>
          {open === s.id && <Deliveries id={s.id} />}
        </article>
      ))}
    </div>
  );
}

function TestButton({ id, onSent }: { id: string; onSent: () => void }) {
  const qc = useQueryClient();
  const test = useMutation({
    mutationFn: () => api(`/v1/webhooks/${id}/test`, { method: 'POST' }),
    onSuccess: () => {
      onSent();
      void qc.invalidateQueries({ queryKey: ['webhook-deliveries', id] });
    },
  });
  return (
    <button
      className="btn small"
      disabled={test.isPending}
      onClick={() => test.mutate()}
      title={test.error ? String(test.error) : undefined}
    >
      Send test
    </button>
  );
}

const statusTone = (s: WebhookDelivery['status']) =>
  s === 'delivered' ? 'ok' : s === 'failed' ? 'bad' : 'warn';

/** A subscription's delivery log, newest first, refreshed every 2 s while open. */
function Deliveries({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ['webhook-deliveries', id],
    queryFn: async () =>
      (await api<{ items: WebhookDelivery[] }>(`/v1/webhooks/${id}/deliveries`, { query: { limit: 50 } }))
        .items,
    refetchInterval: 2000,
  });
  if (q.isLoading) return <Loading />;
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data?.length) return <div className="muted small">No deliveries yet.</div>;
  return (
    <table className="table deliveries">
      <thead>
        <tr>
          <th>Event</th>
          <th>Status</th>
          <th>Attempts</th>
          <th>Last answer</th>
          <th>Duration</th>
          <th>Created</th>
          <th>Next attempt / delivered</th>
        </tr>
      </thead>
      <tbody>
        {q.data.map((d) => (
          <tr key={d.id} data-delivery-id={d.id}>
            <td title={`webhook-id ${d.id}`}>{d.eventType}</td>
            <td>
              <Badge tone={statusTone(d.status)}>{d.status}</Badge>
            </td>
            <td>{d.attempts}</td>
            <td className="mono small">{d.lastError ?? d.lastStatusCode ?? '—'}</td>
            <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
            <td>{dateTime(d.createdAt)}</td>
            <td>
              {d.deliveredAt ? dateTime(d.deliveredAt) : d.nextAttemptAt ? relative(d.nextAttemptAt) : '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
