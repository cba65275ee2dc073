import { useQuery } from '@tanstack/react-query';
import { api, type Page } from '../api/client';
import type { PolicyView } from '../api/types';

/** Every policy of the project, by name (`GET /v1/policies`, first 500). */
export function usePolicies() {
  return useQuery({
    queryKey: ['policies'],
    queryFn: async () => (await api<Page<PolicyView>>('/v1/policies', { query: { limit: 500 } })).items,
  });
}
