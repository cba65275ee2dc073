import { createUser, type PrismaClient } from '@agent-warden/db';
import { randomSuffix } from './env';
import { createProjectViaApi } from './projects-api';

/** A project made for a test, with an all-scopes API key and an admin who can sign in. */
export interface TestProject {
  projectId: string;
  name: string;
  /** Secret of an API key with the scopes `ingest`, `read` and `admin`. */
  apiKey: string;
  /** The project's admin (its creator, a member of no other project). */
  admin: { email: string; password: string };
}

/**
 * Creates a project the way a person does, through the public API (services/api README
 * "Projects"): a new person account (the one thing made through the db layer: the API creates
 * accounts only as members of an existing project) signs in, `POST /v1/projects` (they become its
 * admin, member of nothing else), then an API key with all scopes for it.
 */
export async function createTestProject(
  stack: { prisma: PrismaClient; apiUrl: string },
  name: string,
): Promise<TestProject> {
  const admin = {
    email: `admin-${randomSuffix()}@${name}.example.com`,
    password: `pw-${randomSuffix()}-${randomSuffix()}`,
  };
  await createUser(stack.prisma, admin);
  const fullName = `${name}-${randomSuffix()}`;
  const created = await createProjectViaApi(stack.apiUrl, admin, fullName);
  return { projectId: created.projectId, name: fullName, apiKey: created.apiKey, admin };
}
