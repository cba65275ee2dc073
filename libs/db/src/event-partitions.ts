import { Prisma, type PrismaClient } from './client';

/**
 * The week partitions of `events` (docs/decisions.md "Events partitioned by week"): created ahead
 * by the service, and dropped whole by retention when no project keeps anything in them. The
 * table, its DEFAULT partition and the partitions of the rows that existed before are created by
 * migration `20261124200000_partitioned_events`; names are `events_pYYYYMMDD` after the partition's
 * Monday (UTC), bounds `[Monday 00:00 UTC, next Monday 00:00 UTC)`.
 */

const DAY_MS = 86_400_000;
/** Width of a partition: one week, ms. */
export const EVENT_PARTITION_MS = 7 * DAY_MS;
/** Weeks created ahead of the current one by {@link ensureEventPartitions}. */
export const EVENT_PARTITIONS_AHEAD = 4;
/** The DEFAULT partition: rows whose time has no week partition (a far past or future client clock). */
export const EVENT_DEFAULT_PARTITION = 'events_default';
/**
 * Transaction-level advisory lock that serialises partition DDL (creation here, drops in
 * {@link dropExpiredEventPartitions}) across processes; the migration runner's is 72707369.
 */
export const EVENT_PARTITION_LOCK = 72707370;
/** How long partition DDL waits for a table lock before giving up until the next pass (PostgreSQL `lock_timeout`). */
const LOCK_TIMEOUT = '10s';

/** One week partition of `events`: `[from, to)`. */
export interface EventPartition {
  name: string;
  from: Date;
  to: Date;
}

/** Monday 00:00 UTC of the week holding `t`. */
export function eventWeekStart(t: Date): Date {
  const day = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate());
  return new Date(day - ((t.getUTCDay() + 6) % 7) * DAY_MS);
}

/** The partition of the week starting at `from` (a Monday 00:00 UTC): `events_pYYYYMMDD`. */
export function eventPartitionFor(from: Date): EventPartition {
  const name = `events_p${from.toISOString().slice(0, 10).replaceAll('-', '')}`;
  return { name, from, to: new Date(from.getTime() + EVENT_PARTITION_MS) };
}

const PARTITION_NAME = /^events_p(\d{4})(\d{2})(\d{2})$/;

/**
 * The week partitions attached to `events`, oldest first (the DEFAULT partition is not listed). Bounds
 * come from the names this module and the migration give them; a partition named otherwise (made by
 * hand) is ignored here, so it is never dropped by retention.
 */
export async function listEventPartitions(
  db: PrismaClient | Prisma.TransactionClient,
): Promise<EventPartition[]> {
  const rows = await db.$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`;
  const out: EventPartition[] = [];
  for (const { name } of rows) {
    const m = PARTITION_NAME.exec(name);
    if (m) out.push(eventPartitionFor(new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!))));
  }
  return out;
}

/**
 * Creates the partitions of the week holding `now` and of the {@link EVENT_PARTITIONS_AHEAD} next
 * weeks where missing; run at start and on the retention timer (api and standalone). Idempotent and
 * safe from several processes at once: each creation is one transaction under
 * {@link EVENT_PARTITION_LOCK} that first checks the partition does not exist yet. Rows of that week
 * already in the DEFAULT partition are moved into the new partition in the same transaction before
 * it is attached, so no row is ever unreadable. Waits at most 10 s for a table lock
 * (PostgreSQL error 55P03 is thrown otherwise: the caller tries again on its next pass).
 * @param now the clock (tests); default the current time
 * @param ahead weeks after the current one; default {@link EVENT_PARTITIONS_AHEAD}
 * @returns the partitions created and the rows moved out of the DEFAULT partition
 */
export async function ensureEventPartitions(
  db: PrismaClient,
  now: Date = new Date(),
  ahead: number = EVENT_PARTITIONS_AHEAD,
): Promise<{ created: string[]; moved: number }> {
  const existing = new Set((await listEventPartitions(db)).map((p) => p.name));
  const out = { created: [] as string[], moved: 0 };
  const first = eventWeekStart(now).getTime();
  for (let w = 0; w <= ahead; w++) {
    const part = eventPartitionFor(new Date(first + w * EVENT_PARTITION_MS));
    if (existing.has(part.name)) continue;
    const moved = await createEventPartition(db, part);
    if (moved === null) continue;
    out.created.push(part.name);
    out.moved += moved;
  }
  return out;
}

/**
 * Creates and attaches one week partition, moving its rows out of the DEFAULT partition; returns the
 * rows moved, or null when another process created it first.
 */
async function createEventPartition(db: PrismaClient, part: EventPartition): Promise<number | null> {
  const name = Prisma.raw(`"${part.name}"`);
  const from = Prisma.sql`${part.from.toISOString()}::timestamptz`;
  const to = Prisma.sql`${part.to.toISOString()}::timestamptz`;
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${EVENT_PARTITION_LOCK}::bigint)`;
      const [found] = await tx.$queryRaw<{ exists: boolean }[]>`
        SELECT to_regclass(${part.name}) IS NOT NULL AS exists`;
      if (found!.exists) return null;
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      // The DEFAULT partition first: no insert may put a row of this week there between the move
      // and the attach (which checks the DEFAULT partition holds none).
      await tx.$executeRawUnsafe(`LOCK TABLE "${EVENT_DEFAULT_PARTITION}" IN ACCESS EXCLUSIVE MODE`);
      await tx.$executeRaw`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`;
      const moved = await tx.$executeRaw`
        WITH m AS (DELETE FROM events_default WHERE time >= ${from} AND time < ${to} RETURNING *)
        INSERT INTO ${name} (id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id, type,
                             time, sequence, data, received_at)
        SELECT id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id, type,
               time, sequence, data, received_at FROM m`;
      // ATTACH (not CREATE … PARTITION OF) takes only SHARE UPDATE EXCLUSIVE on `events`: reads and
      // writes of the other partitions go on; it builds the table's indexes and foreign keys.
      await tx.$executeRawUnsafe(
        `ALTER TABLE events ATTACH PARTITION "${part.name}" FOR VALUES FROM ('${part.from.toISOString()}') TO ('${part.to.toISOString()}')`,
      );
      return moved;
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
}

/**
 * Drops the week partitions that retention may remove whole (docs/decisions.md "Retention by whole
 * sessions"): a partition qualifies when every project has a retention window and the partition ends
 * before the cutoff (now − retention_days) of each of them, and no session that is kept (last event
 * at or after its project's cutoff) has events in it (a session's events lie between its
 * `started_at` and `last_event_at`), so a long session keeps its beginning. Each qualifying
 * partition is checked again, detached and dropped in one transaction under
 * {@link EVENT_PARTITION_LOCK} holding `events` exclusively (10 s lock timeout: a partition whose lock
 * is not obtained is left for the next run). The DEFAULT partition is never dropped. The sessions
 * whose events were in it are left to the per-session delete, which runs after this.
 * @param now the clock (tests); default the current time
 * @returns the names of the partitions dropped, oldest first
 */
export async function dropExpiredEventPartitions(
  db: PrismaClient,
  now: Date = new Date(),
): Promise<string[]> {
  // One query decides whether any partition can go (every project has a window) and up to where:
  // partitions are listed oldest first, so the walk stops at the first one ending after that cutoff.
  const cutoff = await earliestCutoff(db, now);
  if (cutoff === null) return [];
  const dropped: string[] = [];
  for (const part of await listEventPartitions(db)) {
    if (part.to.getTime() > cutoff.getTime()) break;
    if (!(await droppable(db, part, now))) continue;
    const done = await db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${EVENT_PARTITION_LOCK}::bigint)`;
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        // `events` before the partition (the order of every reader and writer), so no insert into it
        // commits between the check below and the detach.
        await tx.$executeRawUnsafe(`LOCK TABLE events IN ACCESS EXCLUSIVE MODE`);
        const [found] = await tx.$queryRaw<{ attached: boolean }[]>`
          SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = 'events'::regclass
                            AND inhrelid = to_regclass(${part.name})) AS attached`;
        if (!found!.attached || !(await droppable(tx, part, now))) return false;
        await tx.$executeRawUnsafe(`ALTER TABLE events DETACH PARTITION "${part.name}"`);
        await tx.$executeRawUnsafe(`DROP TABLE "${part.name}"`);
        return true;
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
    if (done) dropped.push(part.name);
  }
  return dropped;
}

/**
 * The earliest retention cutoff (now − retention_days) over all projects, or null when there is no
 * project or one keeps everything (no window): then no week partition may be dropped.
 */
async function earliestCutoff(db: PrismaClient, now: Date): Promise<Date | null> {
  const [row] = await db.$queryRaw<{ cutoff: Date | null }[]>`
    SELECT CASE WHEN count(*) > 0 AND count(*) = count(retention_days)
                THEN min(${now}::timestamptz - make_interval(days => retention_days)) END AS cutoff
      FROM projects`;
  return row?.cutoff ?? null;
}

/**
 * Whether `part` lies wholly before now and every project's cutoff (at least one project existing)
 * and holds no event of a kept session.
 */
async function droppable(
  db: PrismaClient | Prisma.TransactionClient,
  part: EventPartition,
  now: Date,
): Promise<boolean> {
  if (part.to.getTime() > now.getTime()) return false;
  const [row] = await db.$queryRaw<{ ok: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM projects)
       AND NOT EXISTS (
             SELECT 1 FROM projects p
              WHERE p.retention_days IS NULL
                 OR ${part.to}::timestamptz > ${now}::timestamptz - make_interval(days => p.retention_days))
       AND NOT EXISTS (
             SELECT 1 FROM sessions s JOIN projects p ON p.id = s.project_id
              WHERE s.started_at < ${part.to}::timestamptz AND s.last_event_at >= ${part.from}::timestamptz
                AND s.last_event_at >= ${now}::timestamptz - make_interval(days => p.retention_days)) AS ok`;
  return row!.ok;
}
