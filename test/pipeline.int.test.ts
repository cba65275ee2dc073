import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORY_FILES } from './support/env';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

/**
 * The whole pipeline on real servers: TypeScript client → gateway → Kafka → projector (its own
 * process, a Kafka consumer group) → PostgreSQL, with every shared trajectory replayed; the
 * projector schedules `session-ready` jobs in BullMQ (Redis) and the intelligence worker (its own
 * process) analyses every session.
 */
describe('stack: client → gateway → Kafka → projector → PostgreSQL → intelligence worker', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      intelligence: true,
      env: { WARDEN_INTELLIGENCE_CONCURRENCY: '4', WARDEN_INTELLIGENCE_BACKOFF_MS: '200' },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('all 762 shared trajectories are stored exactly once', async () => {
    const summary = await replayFiles({
      files: TRAJECTORY_FILES,
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      concurrency: 8,
      statsUrl: stack.apiUrl,
    });
    expect(summary.trajectories).toBe(762);
    expect(summary.client).toEqual({ dropped: 0, failed: 0, rejected: 0, retries: expect.any(Number) });
    expect(summary.events_sent).toBeGreaterThan(762 * 4);
    expect(summary.missing).toBe(0);
    expect(summary.duplicates).toBe(0);
    expect(summary.events_stored).toBe(summary.events_sent);

    // Read back independently of the stats endpoint: one session per trajectory, ids unique,
    // each session's sequences 1..n without gaps, every tool call with its evaluation.
    const rows = await stack.prisma.$queryRaw<
      {
        sessions: bigint;
        events: bigint;
        distinct_ids: bigint;
        gappy: bigint;
        evaluations: bigint;
        tool_started: bigint;
      }[]
    >`SELECT (SELECT count(*) FROM sessions) AS sessions,
             (SELECT count(*) FROM events) AS events,
             (SELECT count(DISTINCT id) FROM events) AS distinct_ids,
             (SELECT count(*) FROM sessions WHERE max_sequence <> event_count) AS gappy,
             (SELECT count(*) FROM guardrail_evaluations) AS evaluations,
             (SELECT count(*) FROM events WHERE type = 'agent.tool.started') AS tool_started`;
    const r = rows[0]!;
    expect(Number(r.sessions)).toBe(762);
    expect(Number(r.events)).toBe(summary.events_sent);
    expect(Number(r.distinct_ids)).toBe(Number(r.events));
    expect(Number(r.gappy)).toBe(0);
    expect(Number(r.tool_started)).toBe(3571);
    expect(Number(r.evaluations)).toBe(3571);
    expect(summary.decisions).toEqual({ allow: 3571 });
  }, 600_000);

  test('every session gets intelligence, and every event id it cites is an event of that session', async () => {
    // Done when every session's latest version is current and covers all its events, and no job is left.
    await waitFor(
      async () => {
        const [row] = await stack.prisma.$queryRaw<{ pending: bigint }[]>`
          SELECT count(*) AS pending FROM sessions s
           WHERE NOT EXISTS (SELECT 1 FROM session_intelligence i
                              WHERE i.session_id = s.id AND i.status = 'current' AND i.event_count = s.event_count)`;
        if (Number(row!.pending) > 0) return false;
        const c = await stack.queue.counts('session-ready');
        return c.waiting + c.delayed + c.active === 0;
      },
      300_000,
      1000,
    );
    expect(await stack.queue.counts('session-ready')).toMatchObject({ failed: 0 });

    const [sessions] = await stack.prisma.$queryRaw<{ total: bigint; with_intelligence: bigint }[]>`
      SELECT count(*) AS total,
             count(*) FILTER (WHERE EXISTS (SELECT 1 FROM session_intelligence i WHERE i.session_id = s.id))
               AS with_intelligence
        FROM sessions s`;
    expect(Number(sessions!.total)).toBe(762);
    expect(Number(sessions!.with_intelligence)).toBe(762);

    // Every cited event id, of every version: story moments, action items and recommendations.
    const cited = await stack.prisma.$queryRaw<{ source: string; cited: bigint; foreign: bigint }[]>`
      WITH cited AS (
        SELECT i.session_id, id.value AS event_id, 'story' AS source
          FROM session_intelligence i, jsonb_array_elements(i.story) m, jsonb_array_elements_text(m->'eventIds') id
        UNION ALL
        SELECT i.session_id, id.value, 'action_items'
          FROM session_intelligence i, jsonb_array_elements(i.action_items) a,
               jsonb_array_elements_text(a->'evidenceEventIds') id
        UNION ALL
        SELECT r.session_id, unnest(r.evidence_event_ids), 'recommendations' FROM recommendations r)
      SELECT source, count(*) AS cited,
             count(*) FILTER (WHERE NOT EXISTS (
               SELECT 1 FROM events e WHERE e.session_id = c.session_id AND e.id::text = c.event_id)) AS foreign
        FROM cited c GROUP BY source ORDER BY source`;
    const bySource = Object.fromEntries(
      cited.map((r) => [r.source, { cited: Number(r.cited), foreign: Number(r.foreign) }]),
    );
    expect(Object.keys(bySource)).toEqual(['action_items', 'recommendations', 'story']);
    for (const [source, r] of Object.entries(bySource)) {
      expect({ source, foreign: r.foreign }).toEqual({ source, foreign: 0 });
      expect(r.cited).toBeGreaterThan(0);
    }
    // Every story names at least its start and its end.
    const [thin] = await stack.prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM session_intelligence WHERE jsonb_array_length(story) < 2`;
    expect(Number(thin!.n)).toBe(0);
  }, 360_000);

  test('the api shows a replayed session with its run and events in order', async () => {
    const page = await call(stack.apiUrl, 'GET', '/v1/sessions?limit=5', { apiKey: stack.apiKey });
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(5);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const starts = page.body.items.map((s: { startedAt: string }) => s.startedAt);
    expect([...starts].sort().reverse()).toEqual(starts);

    const next = await call(stack.apiUrl, 'GET', `/v1/sessions?limit=5&cursor=${page.body.nextCursor}`, {
      apiKey: stack.apiKey,
    });
    expect(next.body.items.map((s: { id: string }) => s.id)).not.toContain(page.body.items[0].id);

    const id = page.body.items[0].id;
    const s = await call(stack.apiUrl, 'GET', `/v1/sessions/${id}`, { apiKey: stack.apiKey });
    expect(s.status).toBe(200);
    expect(s.body.runs).toHaveLength(1);
    expect(s.body.runs[0].status).toBe('succeeded');
    expect(s.body.runs[0].inputSummary).toBe(s.body.inputSummary);
    const seqs = s.body.events.map((e: { sequence: number }) => e.sequence);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(s.body.events[0].type).toBe('agent.session.started');
    expect(s.body.events.at(-1).type).toBe('agent.session.ended');
    expect(s.body.missingSequences).toBe(0);

    const byType = await call(stack.apiUrl, 'GET', '/v1/events?type=agent.tool.failed&limit=3', {
      apiKey: stack.apiKey,
    });
    expect(byType.status).toBe(200);
    expect(byType.body.items.length).toBeGreaterThan(0);
    for (const e of byType.body.items) expect(e.type).toBe('agent.tool.failed');

    const agents = await call(stack.apiUrl, 'GET', '/v1/agents', { apiKey: stack.apiKey });
    expect(agents.body.items.length).toBeGreaterThan(5);
    for (const a of agents.body.items) expect(a.versions.length).toBeGreaterThan(0);
  });
});
