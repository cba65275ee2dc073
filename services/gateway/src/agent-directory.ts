import type { PrismaClient } from '@agent-warden/db';
import { findAgent } from '@agent-warden/db';

/**
 * Which project an agent id belongs to, cached in memory (agents never move between projects).
 * Unknown ids are cached negatively for `negativeTtlMs` (ms) so a bad client cannot hammer the DB.
 */
export class AgentDirectory {
  private readonly known = new Map<string, { projectId: string; key: string }>();
  private readonly unknown = new Map<string, number>();

  constructor(
    private readonly db: PrismaClient,
    private readonly negativeTtlMs = 5_000,
  ) {}

  /** Remembers an agent just identified. */
  remember(agentId: string, projectId: string, key: string): void {
    this.known.set(agentId, { projectId, key });
    this.unknown.delete(agentId);
  }

  /** The agent's project and key, or null when the id is unknown. */
  async lookup(agentId: string): Promise<{ projectId: string; key: string } | null> {
    const hit = this.known.get(agentId);
    if (hit) return hit;
    const miss = this.unknown.get(agentId);
    if (miss !== undefined && miss > Date.now()) return null;
    const a = await findAgent(this.db, agentId);
    if (!a) {
      this.unknown.set(agentId, Date.now() + this.negativeTtlMs);
      return null;
    }
    this.remember(a.id, a.projectId, a.key);
    return { projectId: a.projectId, key: a.key };
  }
}
