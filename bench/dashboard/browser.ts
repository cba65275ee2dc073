import type { BrowserContext, Page } from 'playwright-core';

/**
 * In-page probe, installed before the app's scripts: records `performance.now()` (ms since the
 * navigation started) when the first timeline row is in the DOM, when the first one has been
 * painted (the next animation frame), and when the player counts every event (`/ <total>`); and
 * from the resource timings, when the session request was sent and answered.
 */
const PROBE = `(() => {
  const marks = (window.__bench = {});
  const check = () => {
    if (marks.rows === undefined && document.querySelector('.timeline .tl-row')) {
      marks.rows = performance.now();
      const detail = performance.getEntriesByType('resource').find((e) => e.name.includes('eventsLimit='));
      marks.detail = detail ? detail.responseEnd : -1;
      marks.detailStart = detail ? detail.startTime : -1;
      requestAnimationFrame(() => { marks.painted = performance.now(); });
    }
    const pos = document.querySelector('[data-testid="position"]');
    if (marks.all === undefined && pos && window.__benchTotal && pos.textContent.endsWith('/ ' + window.__benchTotal)) {
      marks.all = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

/** Times of one page open, ms since navigation start. */
export interface OpenTiming {
  /** First timeline rows in the DOM. */
  rows: number;
  /** The frame after: the first rows painted. */
  painted: number;
  /** Every event loaded (the player counts them all). */
  all: number;
  /** When the session request (`?eventsLimit=`) was sent and when its answer had arrived. */
  detailStart: number;
  detail: number;
}

/**
 * Opens `url` in a new page of `context` (signed in) and returns when the first rows appeared and
 * when every one of `total` events was loaded. Throws after `timeoutMs`.
 */
export async function timeOpen(
  context: BrowserContext,
  url: string,
  total: number,
  timeoutMs = 60_000,
): Promise<OpenTiming> {
  const page = await context.newPage();
  try {
    await page.addInitScript(`window.__benchTotal = ${total};\n${PROBE}`);
    await page.goto(url);
    await page
      .waitForFunction(
        'window.__bench.painted !== undefined && window.__bench.all !== undefined',
        undefined,
        {
          timeout: timeoutMs,
        },
      )
      .catch(async (err: Error) => {
        const seen = await page.evaluate('JSON.stringify(window.__bench)');
        throw new Error(`${err.message}; marks ${String(seen)} at ${page.url()}`, { cause: err });
      });
    return (await page.evaluate('window.__bench')) as OpenTiming;
  } finally {
    await page.close();
  }
}

/** Frame times of one programmatic scroll through the whole timeline. */
export interface ScrollRun {
  /** Frame-to-frame intervals, ms (requestAnimationFrame timestamps). */
  frames: number[];
  /** Long tasks (> 50 ms on the main thread) during the scroll: count and total ms. */
  longTasks: number;
  longTaskMs: number;
  /** Most `.tl-row` elements in the DOM at any frame. */
  maxRows: number;
  /** Scroll distance, px. */
  distance: number;
}

/** In-page scroll (a string: the page runs it as is, without the bundler's helpers or Node's types). */
const SCROLL = `async (step) => {
  const el = document.querySelector('.timeline');
  el.scrollTop = 0;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const frames = [];
  let longTasks = 0;
  let longTaskMs = 0;
  let maxRows = 0;
  const po = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      longTasks += 1;
      longTaskMs += e.duration;
    }
  });
  po.observe({ type: 'longtask' });
  const end = el.scrollHeight - el.clientHeight;
  await new Promise((resolve) => {
    let prev;
    const tick = (t) => {
      if (prev !== undefined) frames.push(t - prev);
      prev = t;
      maxRows = Math.max(maxRows, el.querySelectorAll('.tl-row').length);
      if (el.scrollTop >= end - 1) return resolve();
      el.scrollTop = Math.min(end, el.scrollTop + step);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  // Long tasks are reported after they end: give the observer time to deliver them.
  await new Promise((r) => setTimeout(r, 100));
  po.disconnect();
  return { frames, longTasks, longTaskMs, maxRows, distance: end };
}`;

/**
 * On an open session page: scrolls the timeline from top to bottom by `pxPerFrame` every animation
 * frame (as a fast wheel or a dragged scrollbar would), recording each frame's interval, the long
 * tasks and the largest number of rows in the DOM.
 */
export async function scrollThrough(page: Page, pxPerFrame: number): Promise<ScrollRun> {
  return (await page.evaluate(`(${SCROLL})(${Number(pxPerFrame)})`)) as ScrollRun;
}
