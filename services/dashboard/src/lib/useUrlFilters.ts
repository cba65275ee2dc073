import { useSearchParams } from 'react-router';

/**
 * List filters kept in the address (shareable, survive a reload): `query` holds each key's value
 * (undefined when unset), `set` changes one (an empty value removes it, and so do the keys that
 * depend on it, e.g. an agent's version when the agent changes), `clear` removes them all, and
 * `anyFilter` says whether one is set. Changes replace the history entry.
 */
export function useUrlFilters<K extends string>(
  keys: readonly K[],
  dependents: Partial<Record<K, readonly K[]>> = {},
) {
  const [params, setParams] = useSearchParams();
  const query = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? undefined])) as Record<
    K,
    string | undefined
  >;
  const set = (k: K, v: string | undefined) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    for (const d of dependents[k] ?? []) next.delete(d);
    setParams(next, { replace: true });
  };
  const clear = () => setParams(new URLSearchParams(), { replace: true });
  const anyFilter = keys.some((k) => params.get(k));
  return { query, set, clear, anyFilter };
}
