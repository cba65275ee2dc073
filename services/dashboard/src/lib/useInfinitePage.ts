import { useEffect, useRef } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, type Page, type Query } from '../api/client';

/** Keyset pages of `path` with `query` (each `nextCursor` fed back as `cursor`), flattened. */
export function useInfinitePage<T>(key: unknown[], path: string, query: Query, limit = 50) {
  const q = useInfiniteQuery({
    queryKey: [...key, query],
    queryFn: ({ pageParam, signal }) =>
      api<Page<T>>(path, { query: { ...query, limit, cursor: pageParam ?? undefined }, signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = q.data?.pages.flatMap((p) => p.items) ?? [];
  return { ...q, items };
}

/** A ref for an element that loads the next page when it scrolls into view. */
export function useLoadMoreRef(hasNext: boolean, loading: boolean, next: () => void) {
  const ref = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || !hasNext || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !loading) next();
    });
    io.observe(el);
    return () => io.disconnect();
  }, [hasNext, loading, next]);
  return ref;
}
