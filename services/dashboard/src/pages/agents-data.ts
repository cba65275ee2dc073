import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Agent } from '../api/types';

/** Every agent of the project with its versions (`GET /v1/agents`), cached for a minute. */
export function useAgents() {
  return useQuery({
    queryKey: ['agents'],
    queryFn: async () => (await api<{ items: Agent[] }>('/v1/agents')).items,
    staleTime: 60_000,
  });
}

/** Agents by id, and agent versions by id (for labels). */
export function useAgentsById(): Map<string, Agent> {
  const q = useAgents();
  return useMemo(() => new Map((q.data ?? []).map((a) => [a.id, a])), [q.data]);
}

/** `version` label of every agent version id. */
export function useVersionLabels(): Map<string, string> {
  const q = useAgents();
  return useMemo(() => {
    const m = new Map<string, string>();
    for (const a of q.data ?? []) for (const v of a.versions) m.set(v.id, v.version);
    return m;
  }, [q.data]);
}

/** A readable name of an agent. */
export function agentLabel(a: Agent | undefined, fallback: string): string {
  return a?.name ?? a?.key ?? fallback.slice(0, 8);
}
