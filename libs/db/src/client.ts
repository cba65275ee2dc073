import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

export { PrismaClient, Prisma } from './generated/prisma/client';
export type Db = PrismaClient;

/** The `pg` pool under each client {@link createPrisma} made (the projector's batch write borrows from it). */
const pools = new WeakMap<PrismaClient, pg.Pool>();

/**
 * Creates a Prisma client over the `pg` driver adapter (Prisma 7 "driver adapters"), the same for
 * real PostgreSQL and for embedded PGlite behind pglite-socket. The adapter runs on ONE `pg.Pool`
 * that libs/db also uses directly where Prisma costs too much (the projector's batch write,
 * {@link pgPoolOf}), so a process never holds a second pool: embedded PGlite serves one connection
 * at a time (docs/decisions.md "The projector's batch write runs on the pg pool Prisma shares").
 * `$disconnect()` ends the pool.
 * @param url PostgreSQL connection string
 * @param options.poolMax most pooled connections (embedded PGlite: 1, it serves one at a time)
 */
export function createPrisma(url: string, options: { poolMax?: number } = {}): PrismaClient {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Idle connections do not keep a process alive (e.g. when only the batch write used the pool).
    allowExitOnIdle: true,
  });
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, pool);
  return client;
}

/** Thrown by {@link pgPoolOf} for a Prisma client that {@link createPrisma} did not make. */
export class NoPgPoolError extends Error {
  readonly code = 'no_pg_pool';
  constructor() {
    super('this Prisma client was not made by createPrisma: it has no pg pool to share');
    this.name = 'NoPgPoolError';
  }
}

/**
 * The `pg.Pool` that `db`'s adapter runs on (one pool per process: see {@link createPrisma}).
 * Throws {@link NoPgPoolError} when `db` was not made by {@link createPrisma}.
 */
export function pgPoolOf(db: PrismaClient): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new NoPgPoolError();
  return pool;
}
export type {
  Agent,
  AgentVersion,
  Approval,
  Event,
  GuardrailEvaluation,
  LlmCall,
  Policy,
  Run,
  Session,
} from './generated/prisma/client';
