import type { Prisma, PrismaClient } from './client';

/** First key of the advisory locks that serialise policy and settings writes of one project. */
const POLICY_LOCK_NAMESPACE = 7270;

/**
 * Runs `fn` in a transaction holding a per-project advisory lock (`pg_advisory_xact_lock(7270,
 * hashtext(projectId))`), so that writes of one project's policies and settings (name checks,
 * version numbers, imports) are serialised while other projects and every reader go on. Released
 * at commit or rollback. Errors thrown by `fn` roll the whole change back and are rethrown.
 */
export async function withProjectLock<T>(
  db: PrismaClient,
  projectId: string,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
  timeoutMs = 15_000,
): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${POLICY_LOCK_NAMESPACE}::int4, hashtext(${projectId}::text))`;
      return fn(tx);
    },
    { maxWait: 10_000, timeout: timeoutMs },
  );
}
