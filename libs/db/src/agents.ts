import { createHash } from 'node:crypto';
import { newId, type Capability, type IdentifyRequest, type IdentifyResponse } from '@agent-warden/contracts';
import type { PrismaClient } from './client';
import { Prisma } from './client';

/** JSON with object keys sorted, so equal metadata always hashes the same. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** Version string used when none is given: `meta-<first 12 hex of sha256(canonical metadata)>` (docs/architecture.md#identify). */
export function versionFromMetadata(metadata: Record<string, unknown> | undefined): string {
  return `meta-${createHash('sha256')
    .update(canonicalJson(metadata ?? {}))
    .digest('hex')
    .slice(0, 12)}`;
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

/**
 * Registers an agent identity and version; idempotent (docs/architecture.md#identify): the same
 * (project, agent.key) and version give the same ids, also under concurrent calls.
 */
export async function identifyAgent(
  db: PrismaClient,
  projectId: string,
  req: IdentifyRequest,
): Promise<IdentifyResponse> {
  const version = req.version?.version ?? versionFromMetadata(req.version?.metadata);
  const agent = await db.agent.upsert({
    where: { projectId_key: { projectId, key: req.agent.key } },
    create: {
      id: newId(),
      projectId,
      key: req.agent.key,
      name: req.agent.name ?? null,
      description: req.agent.description ?? null,
    },
    update: {
      ...(req.agent.name !== undefined ? { name: req.agent.name } : {}),
      ...(req.agent.description !== undefined ? { description: req.agent.description } : {}),
    },
    select: { id: true },
  });
  const where = { agentId_version: { agentId: agent.id, version } };
  let existing = await db.agentVersion.findUnique({ where, select: { id: true } });
  let created = false;
  if (!existing) {
    try {
      existing = await db.agentVersion.create({
        data: {
          id: newId(),
          projectId,
          agentId: agent.id,
          version,
          metadata: (req.version?.metadata ?? {}) as Prisma.InputJsonValue,
        },
        select: { id: true },
      });
      created = true;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      existing = await db.agentVersion.findUniqueOrThrow({ where, select: { id: true } });
    }
  }
  return { agentId: agent.id, agentVersionId: existing.id, projectId, version, created };
}

/** Agent id → project id and key, or null. */
export async function findAgent(
  db: PrismaClient,
  agentId: string,
): Promise<{ id: string; projectId: string; key: string } | null> {
  return db.agent.findUnique({ where: { id: agentId }, select: { id: true, projectId: true, key: true } });
}

/** Agent version id → its project and agent, or null. */
export async function findAgentVersion(
  db: PrismaClient,
  agentVersionId: string,
): Promise<{ id: string; projectId: string; agentId: string } | null> {
  return db.agentVersion.findUnique({
    where: { id: agentVersionId },
    select: { id: true, projectId: true, agentId: true },
  });
}

/**
 * Replaces the declared capabilities of an agent version of `projectId`.
 * @returns the stored list, or null when the version is unknown in this project
 */
export async function declareCapabilities(
  db: PrismaClient,
  projectId: string,
  agentId: string,
  agentVersionId: string,
  capabilities: Capability[],
): Promise<Capability[] | null> {
  const res = await db.agentVersion.updateMany({
    where: { id: agentVersionId, agentId, projectId },
    data: { capabilities: capabilities as unknown as Prisma.InputJsonValue },
  });
  return res.count === 1 ? capabilities : null;
}
