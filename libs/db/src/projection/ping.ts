import type { PrismaClient } from '../client';

/**
 * Whether PostgreSQL answers a trivial query (`SELECT 1`) now: false on any error (connection
 * refused, pool exhausted, timeout), never throws. The projector asks before it treats a failing
 * batch as poison: a batch is only isolated record by record while the database is reachable.
 */
export async function pingDatabase(db: PrismaClient): Promise<boolean> {
  try {
    await db.$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}
