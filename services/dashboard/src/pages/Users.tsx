import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Role, User } from '../api/types';
import { ErrorBox, Loading, PageHeader } from '../components/ui';
import { relative } from '../lib/format';

const ROLES: Role[] = ['viewer', 'approver', 'admin'];

/** People (admins): who can sign in, with which role. */
export default function Users() {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['users'],
    queryFn: async () => {
      const b = await api<{ items?: User[] } | User[]>('/v1/users');
      return Array.isArray(b) ? b : (b.items ?? []);
    },
  });
  const [form, setForm] = useState({ email: '', name: '', password: '', role: 'viewer' as Role });
  const create = useMutation({
    mutationFn: () => api<User>('/v1/users', { method: 'POST', body: form }),
    onSuccess: () => {
      setForm({ email: '', name: '', password: '', role: 'viewer' });
      void qc.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const update = useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: { role?: Role; disabled?: boolean } }) =>
      api<User>(`/v1/users/${id}`, { method: 'PATCH', body: patch }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['users'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div className="page">
      <PageHeader
        title="People"
        subtitle="Viewers see everything; approvers also decide approvals; admins manage policies, keys and people."
      />
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
          placeholder="initial password"
          required
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
      <ErrorBox error={create.error ?? update.error} />
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
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
