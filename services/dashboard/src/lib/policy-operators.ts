import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { PolicyInput, PolicyOperator, PolicyValidation } from '../api/types';

/**
 * The operators a condition may use, from the API's registry (`GET /v1/policy-operators`): the
 * editor has no list of its own, so a new operator shows up without a dashboard change. Empty
 * while loading.
 */
export function useOperators(): PolicyOperator[] {
  const q = useQuery({
    queryKey: ['policy-operators'],
    queryFn: async () => (await api<{ items: PolicyOperator[] }>('/v1/policy-operators')).items,
    staleTime: Infinity,
  });
  return q.data ?? [];
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * The draft's rule as the API words it (`POST /v1/policies/validate`, 250 ms after the last
 * change): `rule` is null while the match tree does not validate; `undefined` before the first
 * answer. The previous answer stays shown while the next one loads.
 */
export function useRuleText(draft: PolicyInput): string | null | undefined {
  const body = useDebounced(JSON.stringify(draft), 250);
  const q = useQuery({
    queryKey: ['policy-validate', body],
    queryFn: () =>
      api<PolicyValidation>('/v1/policies/validate', { method: 'POST', body: JSON.parse(body) as unknown }),
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
  return q.data?.rule;
}
