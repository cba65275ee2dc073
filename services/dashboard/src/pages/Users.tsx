import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Role, User } from '../api/types';
import { ErrorBox, Loading, PageHeader } from '../components/ui';
import { relative } from '../lib/format';

const ROLES: Role[] = ['viewer', 'approver', 'admin'];

/**
 * Members of a project (admins there): who can sign in, with which role here. Adding an email that
 * already has an account adds that person (no password); a new email needs an initial password.
 * Without `projectId`, the current project's (Admin › People); with it, that project's (the
 * Projects page), with `embedded` leaving out the page header.
 */
export default function Users({ projectId, embedded }: { projectId?: string; embedded?: boolean }) {
  const qc = useQueryClient();
  const base = `/v1/projects/${projectId ?? 'current'}/members`;
  const queryKey = ['users', projectId ?? 'current'];
  const q = useQuery({
    queryKey,
    queryFn: async () => {
      const b = await api<{ items?: User[] } | User[]>(base);
      return Array.isArray(b) ? b : (b.items ?? []);
    },
  });
  const [form, setForm] = useState({ email: '', name: '', password: '', role: 'viewer' as Role });
  const create = useMutation({
    mutationFn: () =>
      api<User>(base, {
        method: 'POST',
        body: {
          email: form.email,
          role: form.role,
          ...(form.password ? { password: form.password } : {}),
          ...(form.name ? { name: form.name } : {}),
        },
      }),
    onSuccess: () => {
      setForm({ email: '', name: '', password: '', role: 'viewer' });
      void qc.invalidateQueries({ queryKey });
    },
  });
  const update = useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: { role?: Role; disabled?: boolean } }) =>
      api<User>(`${base}/${id}`, { method: 'PATCH', body: patch }),
    onSuccess: () => qc.invalidateQueries({ queryKey }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`${base}/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div className={embedded ? undefined : 'page'}>
      {!embedded && (
        <PageHeader
          title="People"
          subtitle="Viewers see everything; approvers also decide approvals; admins manage policies, keys and people."
        />
      )}
      <form className="card row" onSubmit={submit}>
        <input
          type="email"
          placeholder="email"
          required
          value={form.email}
          onChange={(e) => setForm({ ...form, email: e.target.value })}
          aria-label="Email"
        />
        <input
          placeholder="name"
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.target.value })}
          aria-label="Name"
        />
        <input
          type="password"
          placeholder="password (new people)"
          minLength={10}
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
          aria-label="Password"
        />
        <select
          value={form.role}
          onChange={(e) => setForm({ ...form, role: e.target.value as Role })}
          aria-label="Role"
        >
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <button className="btn primary" disabled={create.isPending}>
          Add person
        </button>
      </form>
      <ErrorBox error={create.error ?? update.error ?? remove.error} />
      {q.isLoading && <Loading />}
      <ErrorBox error={q.error} />
      {q.data && (
        <table className="table">
          <thead>
            <tr>
              <th>Email</th>
              <th>Name</th>
              <th>Role</th>
              <th>Last sign-in</th>
              <th>Active</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {q.data.map((u) => (
              <tr key={u.id} className={u.disabledAt ? 'disabled' : ''}>
                <td>{u.email}</td>
                <td>{u.name ?? '—'}</td>
                <td>
                  <select
                    value={u.role}
                    onChange={(e) => update.mutate({ id: u.id, patch: { role: e.target.value as Role } })}
                    aria-label={`Role of ${u.email}`}
                  >
                    {ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td>{relative(u.lastLoginAt)}</td>
                <td>
                  <input
                    type="checkbox"
                    checked={!u.disabledAt}
                    onChange={(e) => update.mutate({ id: u.id, patch: { disabled: !e.target.checked } })}
                    aria-label={`Active ${u.email}`}
                  />
                </td>
                <td>
                  <button
                    className="btn small bad"
                    onClick={() => {
                      if (window.confirm(`Remove ${u.email} from this project? Their account stays.`))
                        remove.mutate(u.id);
                    }}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
