import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { can, forgetAllBut, useMe, useSwitchProject } from '../api/auth';
import { api } from '../api/client';
import type { AuthSession, Project } from '../api/types';
import { Badge, EmptyState, ErrorBox, PageHeader, Tabs } from '../components/ui';
import { dateTime } from '../lib/format';
import ApiKeys from './ApiKeys';
import ProjectRetention from './ProjectRetention';
import Users from './Users';

/**
 * Projects (every signed-in person): create one (you become its admin), switch to one, and, as its
 * admin, rename it, manage its members and API keys, or delete it with all its data (typing its
 * name to confirm). docs/decisions.md "Projects and members".
 */
export default function Projects() {
  const qc = useQueryClient();
  const { user, projects } = useMe();
  const switchTo = useSwitchProject();
  const [selectedId, setSelectedId] = useState<string | undefined>(user?.projectId ?? undefined);
  const selected =
    projects.find((p) => p.id === selectedId) ?? projects.find((p) => p.id === user?.projectId);
  const [name, setName] = useState('');
  /** Re-reads who is signed in (their projects) and, when the cookie changed, forgets the old project's answers. */
  const reload = async (cookieChanged = false) => {
    const session = await api<AuthSession>('/v1/auth/me');
    if (cookieChanged) forgetAllBut(qc, session);
    else qc.setQueryData(['me'], session);
  };
  const create = useMutation({
    mutationFn: () => api<Project>('/v1/projects', { method: 'POST', body: { name } }),
    onSuccess: async (p) => {
      setName('');
      setSelectedId(p.id);
      await reload();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/v1/projects/${id}`, { method: 'DELETE' }),
    onSuccess: async (_r, id) => {
      setSelectedId(undefined);
      await reload(id === user?.projectId);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div className="page">
      <PageHeader
        title="Projects"
        subtitle="Keep teams or environments apart: each project has its own sessions, policies, approvals, API keys and people."
      />
      <form className="card row" onSubmit={submit}>
        <input
          placeholder="Project name, e.g. billing-agent staging"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          className="grow"
          aria-label="Project name"
        />
        <button className="btn primary" disabled={create.isPending}>
          Create project
        </button>
      </form>
      <ErrorBox error={create.error ?? switchTo.error ?? remove.error} />
      {projects.length === 0 ? (
        <EmptyState title="No project yet">
          <p className="muted">Create one above, or ask an admin of a project to add you.</p>
        </EmptyState>
      ) : (
        <table className="table projects-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Your role</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {projects.map((p) => (
              <tr key={p.id} className={p.id === selected?.id ? 'selected' : ''}>
                <td>
                  <button className="btn ghost small" onClick={() => setSelectedId(p.id)}>
                    {p.name}
                  </button>
                </td>
                <td>{p.role}</td>
                <td>{dateTime(p.createdAt)}</td>
                <td>
                  {p.id === user?.projectId ? (
                    <Badge tone="ok">current</Badge>
                  ) : (
                    <button
                      className="btn small"
                      disabled={switchTo.isPending}
                      onClick={() => switchTo.mutate(p.id)}
                      aria-label={`Switch to ${p.name}`}
                    >
                      Switch
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && can(selected.role, 'admin') && (
        <ProjectAdmin
          key={selected.id}
          project={selected}
          onRenamed={() => void reload()}
          onDelete={() => remove.mutate(selected.id)}
          deleting={remove.isPending}
        />
      )}
    </div>
  );
}

/** Settings of one project its admin sees: rename, members, API keys, retention, delete. */
function ProjectAdmin({
  project,
  onRenamed,
  onDelete,
  deleting,
}: {
  project: Project;
  onRenamed: () => void;
  onDelete: () => void;
  deleting: boolean;
}) {
  const [tab, setTab] = useState<'members' | 'keys' | 'retention'>('members');
  const [name, setName] = useState(project.name);
  const rename = useMutation({
    mutationFn: () => api<Project>(`/v1/projects/${project.id}`, { method: 'PATCH', body: { name } }),
    onSuccess: onRenamed,
  });
  const confirmDelete = () => {
    const typed = window.prompt(
      `Delete "${project.name}" and all its sessions, events, policies, approvals, API keys and memberships? This cannot be undone. Type the project's name to confirm.`,
    );
    if (typed === project.name) onDelete();
  };
  return (
    <section className="card project-admin" aria-label={`Settings of ${project.name}`}>
      <h2>{project.name}</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate();
        }}
      >
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          aria-label="Rename to"
        />
        <button className="btn" disabled={rename.isPending || name.trim() === project.name}>
          Rename
        </button>
        <span className="grow" />
        <button type="button" className="btn bad" disabled={deleting} onClick={confirmDelete}>
          Delete project
        </button>
      </form>
      <ErrorBox error={rename.error} />
      <Tabs
        tabs={[
          { id: 'members', label: 'Members' },
          { id: 'keys', label: 'API keys' },
          { id: 'retention', label: 'Retention' },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === 'members' ? (
        <Users projectId={project.id} embedded />
      ) : tab === 'keys' ? (
        <ApiKeys projectId={project.id} embedded />
      ) : (
        <ProjectRetention projectId={project.id} />
      )}
    </section>
  );
}
