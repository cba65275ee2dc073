import { createElement, lazy, type ComponentType } from 'react';

/** A lazily loaded page that can be fetched ahead of its first render. */
export type LazyPage = ComponentType & {
  /** Starts loading the page's code; once loaded, the page renders without suspending. */
  preload(): Promise<void>;
};

/**
 * Like `React.lazy`, plus `preload()`: a page whose code arrived before its first render renders at
 * once instead of suspending, so React does not hold the page behind the Suspense fallback (React
 * keeps a fallback up for at least 300 ms once shown). Used for pages people open by link.
 */
export function lazyPage(load: () => Promise<{ default: ComponentType }>): LazyPage {
  let loaded: ComponentType | undefined;
  let loading: Promise<void> | undefined;
  const preload = () =>
    (loading ??= load().then((m) => {
      loaded = m.default;
    }));
  const Lazy = lazy(() => preload().then(() => ({ default: loaded! })));
  const Page = () => createElement(loaded ?? Lazy);
  return Object.assign(Page, { preload });
}
