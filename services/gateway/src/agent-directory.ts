import type { PrismaClient } from '@agent-warden/db';
import { findAgent, findAgentVersion } from '@agent-warden/db';

/**
 * Which project an agent id (and an agent version id) belongs to, cached in memory (agents and
 * their versions never move between projects). Unknown ids are cached negatively for
 * `negativeTtlMs` (ms) so a bad client cannot hammer the DB. The gateway checks every agent and
 * agent version id a request names against the caller's project with it (docs/decisions.md "Ids
 * are owned by a project"); the database's composite foreign keys enforce the same.
 */
export class AgentDirectory {
  private readonly known = new Map<string, { projectId: string; key: string }>();
  private readonly unknown = new Map<string, number>();
  private readonly knownVersions = new Map<string, { projectId: string; agentId: string }>();
  private readonly unknownVersions = new Map<string, number>();

  constructor(
    private readonly db: PrismaClient,
    private readonly negativeTtlMs = 5_000,
  ) {}

  /** Remembers an agent just identified. */
  remember(agentId: string, projectId: string, key: string): void {
    this.known.set(agentId, { projectId, key });
    this.unknown.delete(agentId);
  }

  /** Remembers an agent version just identified. */
  rememberVersion(agentVersionId: string, projectId: string, agentId: string): void {
    this.knownVersions.set(agentVersionId, { projectId, agentId });
    this.unknownVersions.delete(agentVersionId);
  }

  /**
   * True when `agentVersionId` is a version of `agentId` in `projectId`; false when it is unknown,
   * of another agent or of another project.
   */
  async ownsVersion(projectId: string, agentId: string, agentVersionId: string): Promise<boolean> {
    let hit = this.knownVersions.get(agentVersionId);
    if (!hit) {
      const miss = this.unknownVersions.get(agentVersionId);
      if (miss !== undefined && miss > Date.now()) return false;
      const v = await findAgentVersion(this.db, agentVersionId);
      if (!v) {
        this.unknownVersions.set(agentVersionId, Date.now() + this.negativeTtlMs);
        return false;
      }
      hit = { projectId: v.projectId, agentId: v.agentId };
      this.rememberVersion(agentVersionId, hit.projectId, hit.agentId);
    }
    return hit.projectId === projectId && hit.agentId === agentId;
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
