import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { can, useMe } from '../api/auth';
import { api } from '../api/client';
import { ErrorBox } from './ui';

/**
 * A session's data actions: export it as NDJSON (anyone who can read it) and, for a project admin,
 * delete it with every row of it after a confirmation (`DELETE /v1/sessions/{id}`;
 * docs/operations.md#retention-and-deletion), then back to the sessions list.
 */
export function SessionActions({ sessionId }: { sessionId: string }) {
  const { user } = useMe();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => api(`/v1/sessions/${sessionId}`, { method: 'DELETE' }),
    onSuccess: async () => {
      qc.removeQueries({ queryKey: ['session', sessionId] });
      await qc.invalidateQueries({ queryKey: ['sessions'] });
      void navigate('/sessions');
    },
  });
  const confirmDelete = () => {
    if (
      window.confirm(
        'Delete this session with its runs, events, evaluations, approvals, scores and intelligence? This cannot be undone.',
      )
    )
      remove.mutate();
  };
  return (
    <span className="session-actions">
      <a className="btn small" href={`/v1/sessions/${sessionId}/export`} download>
        Export NDJSON
      </a>
      {can(user?.role, 'admin') && (
        <button className="btn small bad" disabled={remove.isPending} onClick={confirmDelete}>
          Delete session
        </button>
      )}
      <ErrorBox error={remove.error} />
    </span>
  );
}
