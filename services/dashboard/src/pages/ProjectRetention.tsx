import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Retention } from '../api/types';
import { ErrorBox } from '../components/ui';
import { dateTime } from '../lib/format';

/**
 * A project's retention window (its admin): days of telemetry kept (empty: forever), the last run of
 * the retention job, and a run now (`/v1/projects/{id}/retention`, docs/operations.md#retention-and-deletion).
 */
export default function ProjectRetention({ projectId }: { projectId: string }) {
  const qc = useQueryClient();
  const key = ['retention', projectId];
  const q = useQuery({
    queryKey: key,
    queryFn: () => api<Retention>(`/v1/projects/${projectId}/retention`),
  });
  const [days, setDays] = useState<string | undefined>(undefined);
  const current = q.data?.retentionDays ?? null;
  const value = days ?? (current === null ? '' : String(current));
  const save = useMutation({
    mutationFn: () =>
      api<Retention>(`/v1/projects/${projectId}/retention`, {
        method: 'PUT',
        body: { retentionDays: value.trim() === '' ? null : Number(value) },
      }),
    onSuccess: (v) => {
      qc.setQueryData(key, v);
      setDays(undefined);
    },
  });
  const run = useMutation({
    mutationFn: () => api(`/v1/projects/${projectId}/retention/run`, { method: 'POST' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
  const last = q.data?.lastRun;
  return (
    <div className="retention">
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label htmlFor={`retention-${projectId}`}>Keep telemetry for</label>
        <input
          id={`retention-${projectId}`}
          type="number"
          min={1}
          max={36500}
          placeholder="forever"
          value={value}
          onChange={(e) => setDays(e.target.value)}
          aria-label="Retention in days"
        />
        <span>days</span>
        <button className="btn" disabled={save.isPending || days === undefined}>
          Save retention
        </button>
        <button
          type="button"
          className="btn"
          disabled={run.isPending || current === null}
          onClick={() => run.mutate()}
        >
          Run now
        </button>
      </form>
      <p className="muted">
        Sessions whose last event is older than the window are deleted whole, every hour.{' '}
        {last
          ? `Last run ${dateTime(last.startedAt)}: ${last.status}, ${last.sessions} session(s) deleted${
              last.partitionsDropped
                ? `, ${last.partitionsDropped} old week partition(s) of events dropped`
                : ''
            }.`
          : 'Not run yet.'}
      </p>
      <ErrorBox error={q.error ?? save.error ?? run.error} />
    </div>
  );
}
