/**
 * A resumed replay sends a partly stored session again from its start with the same ids
 * (docs/decisions.md "Replays resume from what the service stored"). The service stores an event
 * once per `(project, id, time)`: the events table is partitioned by time and its key holds the time
 * (docs/decisions.md "Events partitioned by week"), so an event sent again must carry the time it was
 * stored with, not the replay's new clock reading, or it would be stored a second time.
 */

/**
 * Wraps the client's `fetch` so that every event of a `POST …/v1/events` body whose id is in
 * `storedTimes` (id → stored ISO time) is sent with that time; other requests and events pass
 * unchanged. A body that is not a JSON string with an `events` array passes unchanged.
 */
export function keepStoredTimes(
  fetchImpl: typeof fetch,
  storedTimes: ReadonlyMap<string, string>,
): typeof fetch {
  if (storedTimes.size === 0) return fetchImpl;
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (init?.method !== 'POST' || typeof init.body !== 'string' || !/\/v1\/events(\?|$)/.test(url))
      return fetchImpl(input, init);
    let body: { events?: Array<{ id?: unknown; time?: unknown }> };
    try {
      body = JSON.parse(init.body) as typeof body;
    } catch {
      return fetchImpl(input, init);
    }
    if (!Array.isArray(body.events)) return fetchImpl(input, init);
    let changed = false;
    for (const e of body.events) {
      const time = typeof e.id === 'string' ? storedTimes.get(e.id) : undefined;
      if (time !== undefined && e.time !== time) {
        e.time = time;
        changed = true;
      }
    }
    return fetchImpl(input, changed ? { ...init, body: JSON.stringify(body) } : init);
  };
}
