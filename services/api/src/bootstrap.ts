import { randomBytes } from 'node:crypto';
import {
  countApiKeys,
  countUsers,
  createApiKey,
  createProject,
  createUser,
  findUserByEmail,
  firstProject,
  UserEmailTakenError,
  type PrismaClient,
} from '@agent-warden/db';
import { generateApiKey, hashApiKey } from '@agent-warden/http';
import type { Logger } from '@agent-warden/observability';

/**
 * What a first start created. `generatedApiKey` is set only when a key was generated, and
 * `generatedAdmin` only when the first admin got a random password (print each once).
 */
export interface BootstrapResult {
  projectId: string;
  createdProject: boolean;
  generatedApiKey?: string;
  generatedAdmin?: { email: string; password: string };
}

/** Email of the admin made at first start when no `WARDEN_INIT_ADMIN_EMAIL` is given. */
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

/**
 * Ensures the project's first admin: with `initAdmin`, that person exists (created as admin when
 * missing; an existing one is left as it is, password included); without it, when the project has
 * no user, `admin@localhost` with a random password, which is returned once.
 */
async function ensureAdmin(
  db: PrismaClient,
  projectId: string,
  initAdmin: { email: string; password: string } | undefined,
  logger: Logger | undefined,
): Promise<{ email: string; password: string } | undefined> {
  if (initAdmin) {
    if (await findUserByEmail(db, initAdmin.email)) return undefined;
    try {
      const u = await createUser(db, { projectId, ...initAdmin, role: 'admin' });
      logger?.info({ projectId, email: u.email }, 'admin created from WARDEN_INIT_ADMIN_EMAIL');
    } catch (err) {
      if (!(err instanceof UserEmailTakenError)) throw err;
    }
    return undefined;
  }
  if ((await countUsers(db, projectId)) > 0) return undefined;
  const password = randomBytes(18).toString('base64url');
  try {
    await createUser(db, { projectId, email: DEFAULT_ADMIN_EMAIL, password, role: 'admin' });
  } catch (err) {
    if (err instanceof UserEmailTakenError) return undefined; // another process started at the same time
    throw err;
  }
  return { email: DEFAULT_ADMIN_EMAIL, password };
}

/**
 * First-start initialisation, like Langfuse's `LANGFUSE_INIT_*`: ensures a project exists, its
 * first admin (see `ensureAdmin`) and,
 * when `initApiKey` is given, that this key (all scopes) belongs to it — idempotent on every start.
 * Without `initApiKey`, a key is generated only when the project has none; its secret is returned
 * once and never stored (only its SHA-256).
 */
export async function bootstrapProject(
  db: PrismaClient,
  options: {
    projectName?: string;
    initApiKey?: string;
    /** First admin (`WARDEN_INIT_ADMIN_EMAIL` / `WARDEN_INIT_ADMIN_PASSWORD`). */
    initAdmin?: { email: string; password: string };
    logger?: Logger;
  },
): Promise<BootstrapResult> {
  let project = await firstProject(db);
  let createdProject = false;
  if (!project) {
    project = await createProject(db, options.projectName ?? 'default');
    createdProject = true;
    options.logger?.info({ projectId: project.id }, 'project created');
  }
  const generatedAdmin = await ensureAdmin(db, project.id, options.initAdmin, options.logger);
  const base = { projectId: project.id, createdProject, ...(generatedAdmin ? { generatedAdmin } : {}) };
  const scopes: ('ingest' | 'read' | 'admin')[] = ['ingest', 'read', 'admin'];
  if (options.initApiKey) {
    await createApiKey(db, project.id, {
      name: 'init',
      prefix: options.initApiKey.slice(0, 10),
      hash: hashApiKey(options.initApiKey),
      scopes,
    });
    return base;
  }
  if ((await countApiKeys(db, project.id)) > 0) return base;
  const { secret, prefix } = generateApiKey();
  await createApiKey(db, project.id, {
    name: 'generated at first start',
    prefix,
    hash: hashApiKey(secret),
    scopes,
  });
  return { ...base, generatedApiKey: secret };
}
