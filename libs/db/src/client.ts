import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export { PrismaClient, Prisma } from './generated/prisma/client';
export type Db = PrismaClient;

/**
 * Creates a Prisma client over the `pg` driver adapter (Prisma 7 "driver adapters"), the same for
 * real PostgreSQL and for embedded PGlite behind pglite-socket.
 * @param url PostgreSQL connection string
 * @param options.poolMax most pooled connections (embedded PGlite: 1, it serves one at a time)
 */
export function createPrisma(url: string, options: { poolMax?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter });
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
