import { createApiKey, createProject, firstProject, countApiKeys, type PrismaClient } from '@agent-warden/db';
import { generateApiKey, hashApiKey } from '@agent-warden/http';
import type { Logger } from '@agent-warden/observability';

/** What a first start created. `generatedApiKey` is set only when a key was generated (print it once). */
export interface BootstrapResult {
  projectId: string;
  createdProject: boolean;
  generatedApiKey?: string;
}

/**
 * First-start initialisation, like Langfuse's `LANGFUSE_INIT_*`: ensures a project exists and,
 * when `initApiKey` is given, that this key (all scopes) belongs to it — idempotent on every start.
 * Without `initApiKey`, a key is generated only when the project has none; its secret is returned
 * once and never stored (only its SHA-256).
 */
export async function bootstrapProject(
  db: PrismaClient,
  options: { projectName?: string; initApiKey?: string; logger?: Logger },
): Promise<BootstrapResult> {
  let project = await firstProject(db);
  let createdProject = false;
  if (!project) {
    project = await createProject(db, options.projectName ?? 'default');
    createdProject = true;
    options.logger?.info({ projectId: project.id }, 'project created');
  }
  const scopes: ('ingest' | 'read' | 'admin')[] = ['ingest', 'read', 'admin'];
  if (options.initApiKey) {
    await createApiKey(db, project.id, {
      name: 'init',
      prefix: options.initApiKey.slice(0, 10),
      hash: hashApiKey(options.initApiKey),
      scopes,
    });
    return { projectId: project.id, createdProject };
  }
  if ((await countApiKeys(db, project.id)) > 0) return { projectId: project.id, createdProject };
  const { secret, prefix } = generateApiKey();
  await createApiKey(db, project.id, {
    name: 'generated at first start',
    prefix,
    hash: hashApiKey(secret),
    scopes,
  });
  return { projectId: project.id, createdProject, generatedApiKey: secret };
}
