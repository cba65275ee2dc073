import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, ApiError } from './client';
import type { Role, User } from './types';

function userOf(body: unknown): User {
  const b = body as { user?: User } & User;
  return b.user ?? b;
}

/** The signed-in person: `undefined` while loading, `null` when signed out. */
export function useMe(): { user: User | null | undefined; error: unknown } {
  const q = useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      try {
        return userOf(await api('/v1/auth/me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
  return { user: q.data, error: q.error };
}

/** Signs in with email and password (sets the httpOnly `warden_session` cookie). */
export function useLogin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: { email: string; password: string }) =>
      userOf(await api('/v1/auth/login', { method: 'POST', body })),
    onSuccess: (user) => {
      forgetAllBut(qc, user);
    },
  });
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
function forgetAllBut(qc: QueryClient, user: User | null) {
  qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
  qc.setQueryData(['me'], user);
}

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2 };

/** Whether `role` has at least the rights of `needed` (viewer < approver < admin). */
export function can(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[needed];
}
