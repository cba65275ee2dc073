import { newId } from '@agent-warden/contracts';
import {
  EVENT_PARTITIONS_AHEAD,
  dropExpiredEventPartitions,
  ensureEventPartitions,
  eventPartitionFor,
  eventWeekStart,
  writeBatch,
  type ProjectedEvent,
} from '@agent-warden/db';
import { startRetentionSweeper } from '@agent-warden/api';
import { silentLogger } from '@agent-warden/observability';
import { call, waitFor } from './support/http';
import { unguardedDestructiveSession } from './support/sessions';
import { startTestStack, type TestStack } from './support/stack';

const DAY = 86_400_000;
const WEEK = 7 * DAY;

/**
 * The partitioned events table on the real stack (docs/decisions.md "Events partitioned by week",
 * docs/operations.md#event-partitions): week partitions exist ahead of now after start; an event
 * whose client clock is far off is stored in the DEFAULT partition and read back, and moves to its
 * week's partition when that is created; retention drops whole old partitions (gone from
 * `pg_inherits` and `pg_class`) only when every project's window allows it and keeps the one holding
 * the beginning of a session that is kept; reads across a partition boundary are unchanged; a
 * re-delivered batch is stored once.
 */
describe('event partitions', () => {
  let stack: TestStack;
  let agent: { agentId: string; agentVersionId: string };

  const api = (method: string, p: string, body?: unknown) =>
    call(stack.apiUrl, method, p, { apiKey: stack.apiKey, body });
  const partitions = async () =>
    (
      await stack.prisma.$queryRaw<{ name: string }[]>`
        SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`
    ).map((r) => r.name);
  const tableExists = async (name: string) =>
    (
      await stack.prisma.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM pg_class WHERE relname = ${name}`
    )[0]!.n === 1;
  /** Partition holding each event of a session, by sequence. */
  const whereStored = async (sessionId: string) =>
    stack.prisma.$queryRaw<{ part: string; sequence: number }[]>`
      SELECT tableoid::regclass::text AS part, sequence FROM events
       WHERE project_id = ${stack.projectId}::uuid AND session_id = ${sessionId}::uuid ORDER BY sequence, id`;
  const countEvents = async (sessionId: string) =>
    (
      await stack.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM events WHERE session_id = ${sessionId}::uuid`
    )[0]!.n;

  /** Sends events through the gateway and waits until the session holds `expected` events. */
  async function send(events: object[], sessionId: string, expected: number) {
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, body: { events } });
    expect(r.status).toBe(202);
    expect(r.body.rejected).toEqual([]);
    await waitFor(async () => (await countEvents(sessionId)) === expected);
  }
  const session = (t0: number, sessionId = newId()) => ({
    sessionId,
    events: unguardedDestructiveSession({ sessionId, runId: newId(), ...agent }, t0),
  });

  beforeAll(async () => {
    stack = await startTestStack();
    const id = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'partition-agent' } },
    });
    agent = { agentId: id.body.agentId, agentVersionId: id.body.agentVersionId };
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('after start, this week and the next weeks have partitions; the timer puts back a missing one; creating them again is a no-op, and two processes at once create each once', async () => {
    const week = eventWeekStart(new Date()).getTime();
    const ahead = Array.from(
      { length: EVENT_PARTITIONS_AHEAD + 1 },
      (_, w) => eventPartitionFor(new Date(week + w * WEEK)).name,
    );
    const now = await partitions();
    expect(now).toEqual(expect.arrayContaining([...ahead, 'events_default']));
    expect(await ensureEventPartitions(stack.prisma)).toEqual({ created: [], moved: 0 });

    // The retention timer's pass puts back a missing one (here the furthest, dropped by hand).
    const last = ahead.at(-1)!;
    await stack.prisma.$executeRawUnsafe(`DROP TABLE "${last}"`);
    expect(await partitions()).not.toContain(last);
    const sweeper = startRetentionSweeper({
      db: stack.prisma,
      logger: silentLogger(),
      intervalMs: 3_600_000,
    });
    await sweeper.sweep();
    await sweeper.stop();
    expect(await partitions()).toContain(last);

    // Two passes at once for weeks 20–24 from now, on two pooled connections (as two processes would).
    const later = new Date(week + 20 * WEEK);
    const [a, b] = await Promise.all([
      ensureEventPartitions(stack.prisma, later),
      ensureEventPartitions(stack.prisma, later),
    ]);
    const expected = Array.from(
      { length: EVENT_PARTITIONS_AHEAD + 1 },
      (_, w) => eventPartitionFor(new Date(week + (20 + w) * WEEK)).name,
    );
    expect([...a.created, ...b.created].sort()).toEqual(expected);
    expect(await partitions()).toEqual(expect.arrayContaining(expected));
  });

  test('an event far in the past or future is stored in the default partition, read back, and moved when its week gets a partition', async () => {
    const past = session(Date.UTC(2001, 0, 1, 12));
    const future = session(Date.UTC(2093, 5, 3, 12));
    await send(past.events, past.sessionId, past.events.length);
    await send(future.events, future.sessionId, future.events.length);
    for (const s of [past, future])
      expect((await whereStored(s.sessionId)).every((r) => r.part === 'events_default')).toBe(true);
    const before = (await api('GET', `/v1/sessions/${future.sessionId}`)).body;
    expect(before.events.map((e: { id: string }) => e.id)).toEqual(future.events.map((e) => e.id));

    const created = await ensureEventPartitions(stack.prisma, new Date(Date.UTC(2093, 5, 3)), 0);
    const week = eventPartitionFor(eventWeekStart(new Date(Date.UTC(2093, 5, 3)))).name;
    expect(created).toEqual({ created: [week], moved: future.events.length });
    expect((await whereStored(future.sessionId)).every((r) => r.part === week)).toBe(true);
    expect((await whereStored(past.sessionId)).every((r) => r.part === 'events_default')).toBe(true);
    expect((await api('GET', `/v1/sessions/${future.sessionId}`)).body).toEqual(before);
  });

  test('a re-delivered batch (same ids and times) is stored once', async () => {
    const s = session(Date.now() - 3_600_000);
    await send(s.events, s.sessionId, s.events.length);
    // Through the gateway again, then a sentinel event of the same session behind it (same Kafka key).
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', {
      apiKey: stack.apiKey,
      body: { events: s.events },
    });
    expect(r.status).toBe(202);
    const sentinel = { ...s.events.at(-1)!, id: newId(), sequence: 99 };
    await send([sentinel], s.sessionId, s.events.length + 1);
    const row = await stack.prisma.session.findUniqueOrThrow({
      where: { projectId_id: { projectId: stack.projectId, id: s.sessionId } },
      select: { eventCount: true },
    });
    expect(row.eventCount).toBe(s.events.length + 1);
    // And at the storage layer itself: the projector's write of the same batch stores nothing.
    const projected = s.events.map((e) => ({ projectId: stack.projectId, event: e }) as ProjectedEvent);
    expect(await writeBatch(stack.prisma, projected, [])).toMatchObject({ eventsInserted: 0 });
    expect(await countEvents(s.sessionId)).toBe(s.events.length + 1);
  });

  test('retention drops whole old partitions when every window allows it, keeps one holding a kept session, and reads across the boundary are unchanged', async () => {
    const now = Date.now();
    const gone = session(now - 57 * DAY);
    // A long session: begins 43 days ago, still active an hour ago (kept whole by a 30-day window).
    const long = session(now - 43 * DAY);
    const tail = unguardedDestructiveSession(
      { sessionId: long.sessionId, runId: newId(), ...agent },
      now - 3_600_000,
    )
      .filter((e) => e.type !== 'agent.session.started')
      .map((e) => ({ ...e, sequence: (e as unknown as { sequence: number }).sequence + long.events.length }));
    const recent = session(now - 2 * 3_600_000);
    await send(gone.events, gone.sessionId, gone.events.length);
    await send(long.events, long.sessionId, long.events.length);
    await send(tail, long.sessionId, long.events.length + tail.length);
    await send(recent.events, recent.sessionId, recent.events.length);

    // Their weeks get partitions now (as a service that ran back then would have): rows leave the default partition.
    const made = await ensureEventPartitions(stack.prisma, new Date(now - 60 * DAY));
    expect(made.moved).toBe(gone.events.length + long.events.length);
    const gonePart = eventPartitionFor(eventWeekStart(new Date(now - 57 * DAY))).name;
    const longPart = eventPartitionFor(eventWeekStart(new Date(now - 43 * DAY))).name;
    expect(made.created).toEqual(expect.arrayContaining([gonePart, longPart]));
    expect(new Set((await whereStored(gone.sessionId)).map((r) => r.part))).toEqual(new Set([gonePart]));
    // The long session spans two partitions.
    const longParts = new Set((await whereStored(long.sessionId)).map((r) => r.part));
    expect(longParts.size).toBe(2);
    expect(longParts.has(longPart)).toBe(true);

    const read = async () => ({
      long: (await api('GET', `/v1/sessions/${long.sessionId}`)).body,
      recent: (await api('GET', `/v1/sessions/${recent.sessionId}`)).body,
      longEvents: await countEvents(long.sessionId),
    });
    const before = await read();
    expect(before.long.events).toHaveLength(long.events.length + tail.length);

    // A project without a retention window keeps everything: no partition is dropped.
    expect(await dropExpiredEventPartitions(stack.prisma)).toEqual([]);
    expect(await tableExists(gonePart)).toBe(true);

    expect((await api('PUT', '/v1/projects/current/retention', { retentionDays: 30 })).status).toBe(200);
    const partsBefore = await partitions();
    const run = await api('POST', '/v1/projects/current/retention/run');
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'succeeded', retentionDays: 30 });
    const partsAfter = await partitions();
    const dropped = partsBefore.filter((p) => !partsAfter.includes(p));
    expect(dropped).toContain(gonePart);
    expect(run.body.partitionsDropped).toBe(dropped.length);
    const cutoff = Date.parse(run.body.cutoff);
    for (const p of dropped) {
      expect(
        eventPartitionFor(
          new Date(Date.UTC(+p.slice(8, 12), +p.slice(12, 14) - 1, +p.slice(14, 16))),
        ).to.getTime(),
      ).toBeLessThanOrEqual(cutoff);
      expect(await tableExists(p)).toBe(false);
    }
    // The partition with the long session's beginning stays, and so does the long session, whole.
    expect(partsAfter).toContain(longPart);
    expect(partsAfter).toContain('events_default');
    expect(await read()).toEqual(before);
    // The dropped session is gone whole (its session row by the per-session delete), and the list and counts agree.
    expect(await countEvents(gone.sessionId)).toBe(0);
    expect((await api('GET', `/v1/sessions/${gone.sessionId}`)).status).toBe(404);
    const list = (await api('GET', '/v1/sessions?limit=100')).body.items.map((s: { id: string }) => s.id);
    expect(list).toEqual(expect.arrayContaining([long.sessionId, recent.sessionId]));
    expect(list).not.toContain(gone.sessionId);
    const counts = await stack.prisma.$queryRaw<{ id: string; event_count: number; n: number }[]>`
      SELECT s.id::text, s.event_count, (SELECT count(*)::int FROM events e
         WHERE e.project_id = s.project_id AND e.session_id = s.id) AS n
        FROM sessions s WHERE s.project_id = ${stack.projectId}::uuid AND s.id = ANY(${[long.sessionId, recent.sessionId]}::uuid[])`;
    for (const c of counts) expect(c.n).toBe(c.event_count);
    const audit = await stack.prisma.$queryRaw<{ after: { partitionsDropped: number } }[]>`
      SELECT after FROM audit_log WHERE project_id = ${stack.projectId}::uuid AND action = 'telemetry.retention.deleted'`;
    expect(audit.map((a) => a.after.partitionsDropped)).toEqual([dropped.length]);

    // Nothing left to drop: a second run drops none.
    expect((await api('POST', '/v1/projects/current/retention/run')).body.partitionsDropped).toBe(0);
  });
});
