import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, ApiError } from './client';
import type { AuthSession, Project, Role, SessionUser } from './types';

/**
 * The signed-in person and their projects: `user` is `undefined` while loading, `null` when signed
 * out; `user.projectId` is the current project every page acts on (null: they belong to none).
 */
export function useMe(): { user: SessionUser | null | undefined; projects: Project[]; error: unknown } {
  const q = useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      try {
        return await api<AuthSession>('/v1/auth/me');
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
  return {
    user: q.data === undefined ? undefined : (q.data?.user ?? null),
    projects: q.data?.projects ?? [],
    error: q.error,
  };
}

/** The current project of the signed-in person, if any. */
export function useCurrentProject(): Project | undefined {
  const { user, projects } = useMe();
  return projects.find((p) => p.id === user?.projectId);
}

/** Signs in with email and password (sets the httpOnly `warden_session` cookie). */
export function useLogin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) =>
      api<AuthSession>('/v1/auth/login', { method: 'POST', body }),
    onSuccess: (session) => {
      forgetAllBut(qc, session);
    },
  });
}

/**
 * Makes another project current (`POST /v1/auth/project` re-issues the cookie) and forgets every
 * cached answer of the previous project.
 */
export function useSwitchProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string) =>
      api<AuthSession>('/v1/auth/project', { method: 'POST', body: { projectId } }),
    onSuccess: (session) => {
      forgetAllBut(qc, session);
    },
  });
}

/** Re-reads who is signed in and their projects (after a project was created, renamed or deleted). */
export function useRefreshMe() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ['me'] });
}

/** Signs out and forgets every cached answer. */
export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/v1/auth/logout', { method: 'POST' }),
    onSettled: () => {
      forgetAllBut(qc, null);
    },
  });
}

/**
 * Drops every cached answer but who is signed in, then sets that. (`clear()` would also drop the
 * `['me']` query the app is subscribed to, and the new value would reach no one.)
 */
export function forgetAllBut(qc: QueryClient, session: AuthSession | null) {
  qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
  qc.setQueryData(['me'], session);
}

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2 };

/** Whether `role` has at least the rights of `needed` (viewer < approver < admin). */
export function can(role: Role | null | undefined, needed: Role): boolean {
  return !!role && RANK[role] >= RANK[needed];
}
