import { AgentKey, cleanText } from '@agent-warden/contracts';
import { identifyAgent, type PrismaClient } from '@agent-warden/db';
import type { AgentDirectory } from '../agent-directory';
import type { ResourceAgent } from './map-request';

/** The agent key used when a resource has no usable `service.name` (the SDKs' own default prefix). */
export const UNKNOWN_SERVICE_KEY = 'unknown_service';

/**
 * An agent key from `service.name` (docs/otel.md "Agent identity"): characters outside the key's
 * alphabet (letters, digits, `. _ : / -`) become `-`, a leading one is dropped, cut to 128; empty →
 * `unknown_service`.
 */
export function agentKeyOf(serviceName: string | undefined): string {
  const key = (serviceName ?? '')
    .replace(/[^A-Za-z0-9._:/-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return AgentKey.safeParse(key).success ? key : UNKNOWN_SERVICE_KEY;
}

/**
 * Resolves `(service.name, service.version)` of OTLP resources to agents and versions of a project
 * with the identify logic of `POST /v1/agents/identify` (`identifyAgent`, idempotent), cached in
 * memory per `(project, key, version)` (at most `maxEntries`, oldest dropped first) so a busy
 * exporter costs no database write per request. A resource without `service.version` gets the
 * version identify derives from its metadata `{ "source": "otlp" }`.
 */
export class ResourceAgents {
  private readonly cache = new Map<string, ResourceAgent>();

  constructor(
    private readonly db: PrismaClient,
    private readonly directory: AgentDirectory,
    private readonly maxEntries = 10_000,
  ) {}

  /** The agent of a resource in `projectId`; creates the agent and version on first sight. */
  async resolve(projectId: string, service: { name?: string; version?: string }): Promise<ResourceAgent> {
    const key = agentKeyOf(service.name);
    const version = service.version ? cleanText(service.version.slice(0, 128)) : undefined;
    const cacheKey = `${projectId}\n${key}\n${version ?? ''}`;
    const hit = this.cache.get(cacheKey);
    if (hit) return hit;
    const out = await identifyAgent(this.db, projectId, {
      agent: { key, ...(service.name ? { name: cleanText(service.name.slice(0, 200)) } : {}) },
      version: version ? { version } : { metadata: { source: 'otlp' } },
    });
    this.directory.remember(out.agentId, projectId, key);
    this.directory.rememberVersion(out.agentVersionId, projectId, out.agentId);
    const agent = { agentId: out.agentId, agentVersionId: out.agentVersionId };
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(cacheKey, agent);
    return agent;
  }
}
