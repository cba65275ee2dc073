import type { Prisma, PrismaClient } from '@agent-warden/db';

/** The fields `writeBatch` passes to `tx.event.createManyAndReturn` for one event. */
interface EventCreate {
  id: string;
  projectId: string;
  sessionId: string;
  runId: string | null;
  parentId: string | null;
  agentId: string;
  agentVersionId: string;
  type: string;
  time: Date;
  sequence: number;
  data: unknown;
}

/**
 * The events insert of the prototype: the whole batch as ONE JSON parameter, expanded by
 * PostgreSQL (`jsonb_to_recordset`), same columns and `ON CONFLICT (id) DO NOTHING`, returning the
 * ids actually inserted — what `createManyAndReturn({ skipDuplicates: true, select: { id } })`
 * returns, without Prisma building and serialising 11 parameters per row.
 */
export function insertEventsRaw(
  tx: Prisma.TransactionClient,
  data: EventCreate[],
): Promise<{ id: string }[]> {
  const json = JSON.stringify(
    data.map((e) => ({
      id: e.id,
      project_id: e.projectId,
      session_id: e.sessionId,
      run_id: e.runId,
      parent_id: e.parentId,
      agent_id: e.agentId,
      agent_version_id: e.agentVersionId,
      type: e.type,
      time: e.time.toISOString(),
      sequence: e.sequence,
      data: e.data,
    })),
  );
  return tx.$queryRaw<{ id: string }[]>`
    INSERT INTO events (id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id,
                        type, time, sequence, data)
    SELECT id, project_id, session_id, run_id, parent_id, agent_id, agent_version_id,
           type, time, sequence, data
    FROM jsonb_to_recordset(${json}::jsonb) AS x(
      id uuid, project_id uuid, session_id uuid, run_id uuid, parent_id uuid, agent_id uuid,
      agent_version_id uuid, type text, time timestamptz, sequence int, data jsonb)
    ON CONFLICT (id) DO NOTHING
    RETURNING id::text AS id`;
}

function patchTransaction(tx: Prisma.TransactionClient): Prisma.TransactionClient {
  const event = { createManyAndReturn: (args: { data: EventCreate[] }) => insertEventsRaw(tx, args.data) };
  return new Proxy(tx, {
    get: (target, prop, receiver) => (prop === 'event' ? event : Reflect.get(target, prop, receiver)),
  });
}

/**
 * Prototype of a faster projector write, without editing services/: a view of `db` whose
 * interactive transactions see `tx.event.createManyAndReturn` replaced by {@link insertEventsRaw}.
 * Everything else — `writeBatch`'s aggregation, the session/run upserts, the transaction, the
 * handler, the consumer — is the real code, so the difference measures only the events insert.
 */
export function withRawEventInsert(db: PrismaClient): PrismaClient {
  return new Proxy(db, {
    get: (target, prop) => {
      if (prop === '$transaction')
        return (fn: (tx: Prisma.TransactionClient) => Promise<unknown>, options?: object) =>
          target.$transaction((tx) => fn(patchTransaction(tx)), options);
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
