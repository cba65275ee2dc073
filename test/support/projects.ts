import { createApiKey, createProject, createUser, type PrismaClient } from '@agent-warden/db';
import { generateApiKey, hashApiKey } from '@agent-warden/http';
import { randomSuffix } from './env';

/** A project made for a test, with an all-scopes API key and an admin who can sign in. */
export interface TestProject {
  projectId: string;
  name: string;
  /** Secret of an API key with the scopes `ingest`, `read` and `admin`. */
  apiKey: string;
  admin: { email: string; password: string };
}

/**
 * Creates a project with an API key (all scopes) and an admin user, on the stack's database.
 *
 * For now it inserts through the db layer (`createProject`, `createApiKey`, `createUser`), because
 * the projects API is being added in parallel; the lead switches this one function to the projects
 * API (POST /v1/projects …) after merging it, and every suite using it follows.
 */
export async function createTestProject(db: PrismaClient, name: string): Promise<TestProject> {
  const project = await createProject(db, `${name}-${randomSuffix()}`);
  const { secret, prefix } = generateApiKey();
  await createApiKey(db, project.id, {
    name: `${name} test key`,
    prefix,
    hash: hashApiKey(secret),
    scopes: ['ingest', 'read', 'admin'],
  });
  const admin = {
    email: `admin-${randomSuffix()}@${name}.example.com`,
    password: `pw-${randomSuffix()}-${randomSuffix()}`,
  };
  await createUser(db, { projectId: project.id, ...admin, role: 'admin' });
  return { projectId: project.id, name: project.name, apiKey: secret, admin };
}
