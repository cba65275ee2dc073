import { useEffect } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useMe } from '../api/auth';
import { api } from '../api/client';
import type { Approval } from '../api/types';

const PENDING = ['approvals', 'pending'] as const;
const STREAM = ['approvals', 'stream-connected'] as const;

function listOf(body: unknown): Approval[] {
  if (Array.isArray(body)) return body as Approval[];
  const b = body as { items?: Approval[]; approvals?: Approval[] } | null;
  return b?.items ?? b?.approvals ?? [];
}

function approvalOf(body: unknown): Approval | undefined {
  const b = body as { approval?: Approval } & Partial<Approval>;
  const a = b?.approval ?? (b as Approval);
  return a && typeof a.id === 'string' ? a : undefined;
}

/** Pending approvals, soonest deadline first; kept live by {@link useApprovalStream}. */
export function usePendingApprovals(live: boolean, enabled = true) {
  return useQuery({
    queryKey: PENDING,
    enabled,
    queryFn: async () => listOf(await api('/v1/approvals', { query: { status: 'pending', limit: 200 } })),
    // The stream keeps this fresh; poll only while it is down.
    refetchInterval: live ? false : 15_000,
    staleTime: live ? Infinity : 5_000,
  });
}

/** Decided approvals, newest first. */
export function useDecidedApprovals() {
  return useQuery({
    queryKey: ['approvals', 'decided'],
    queryFn: async () => listOf(await api('/v1/approvals', { query: { status: 'decided', limit: 100 } })),
  });
}

function applyApproval(qc: QueryClient, a: Approval) {
  qc.setQueryData<Approval[]>(PENDING, (old = []) => {
    const rest = old.filter((x) => x.id !== a.id);
    return a.status === 'pending'
      ? [...rest, a].sort((x, y) => x.expiresAt.localeCompare(y.expiresAt))
      : rest;
  });
  if (a.status !== 'pending') void qc.invalidateQueries({ queryKey: ['approvals', 'decided'] });
}

/**
 * Opens `GET /v1/approvals/stream` (server-sent events: `snapshot` with the pending list, then one
 * `approval` per change) and writes them into the query cache, so every page updates without a
 * reload. The stream belongs to the current project `projectId`: it is reopened when the person
 * switches projects, and not opened without one. Returns whether the stream is connected.
 */
export function useApprovalStream(projectId: string | null | undefined): boolean {
  const qc = useQueryClient();
  const setConnected = (v: boolean) => qc.setQueryData(STREAM, v);
  useEffect(() => {
    if (typeof EventSource === 'undefined' || !projectId) return;
    const es = new EventSource('/v1/approvals/stream', { withCredentials: true });
    es.onopen = () => setConnected(true);
    es.onerror = () => setConnected(false);
    es.addEventListener('snapshot', (m) => {
      setConnected(true);
      qc.setQueryData(
        PENDING,
        listOf(JSON.parse((m as MessageEvent<string>).data)).sort((x, y) =>
          x.expiresAt.localeCompare(y.expiresAt),
        ),
      );
    });
    es.addEventListener('approval', (m) => {
      const a = approvalOf(JSON.parse((m as MessageEvent<string>).data));
      if (a) applyApproval(qc, a);
    });
    return () => es.close();
  }, [qc, projectId]);
  return useStreamConnected();
}

/** Whether the approvals stream is connected (the dot next to "Live"). */
export function useStreamConnected(): boolean {
  return useQuery({ queryKey: STREAM, queryFn: () => false, enabled: false, initialData: false }).data;
}

/** Live count of pending approvals for the navigation badge (opens the stream). */
export function usePendingCount(): number {
  const projectId = useMe().user?.projectId;
  const live = useApprovalStream(projectId);
  const q = usePendingApprovals(live, !!projectId);
  return q.data?.length ?? 0;
}

/** Records a decision; the stream (or this answer) moves the approval out of the pending list. */
export async function decideApproval(
  qc: QueryClient,
  id: string,
  status: 'approved' | 'denied',
  comment: string,
): Promise<Approval> {
  const a = await api<Approval>(`/v1/approvals/${id}/decision`, {
    method: 'POST',
    body: { status, ...(comment ? { comment } : {}) },
  });
  if (approvalOf(a)) applyApproval(qc, approvalOf(a)!);
  return a;
}
