import { call } from './http';

const CSRF = { 'x-warden-csrf': '1' };

/** A person's email and password, to sign in with. */
export interface Credentials {
  email: string;
  password: string;
}

/** What {@link createProjectViaApi} made. */
export interface CreatedProject {
  projectId: string;
  /** A new API key of the project with the `ingest`, `read` and `admin` scopes (its secret). */
  apiKey: string;
  /** `warden_session=<jwt>` (the `Cookie` header value) with this project current. */
  cookie: string;
}

/** `name=value` of the session cookie an answer sets; throws when it sets none. */
function sessionCookieOf(headers: Headers): string {
  const set = headers.getSetCookie().find((c) => c.startsWith('warden_session='));
  if (!set) throw new Error('the answer set no warden_session cookie');
  return set.split(';')[0]!;
}

/** Throws with the answer when `status` is not the expected one. */
function expectStatus(r: { status: number; body: unknown }, status: number, what: string): void {
  if (r.status !== status)
    throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
}

/**
 * Creates a project through the public API only, as a signed-in person would
 * (services/api README "Projects"): signs in when given credentials (else uses the cookie,
 * `warden_session=…`), `POST /v1/projects {name}` (the person becomes its admin),
 * `POST /v1/projects/{id}/api-keys` (scopes ingest, read, admin) and `POST /v1/auth/project` to make
 * it the cookie's current project. Throws on any unexpected answer.
 */
export async function createProjectViaApi(
  apiBaseUrl: string,
  adminCookieOrCredentials: string | Credentials,
  name: string,
): Promise<CreatedProject> {
  let cookie: string;
  if (typeof adminCookieOrCredentials === 'string') cookie = adminCookieOrCredentials;
  else {
    const login = await call(apiBaseUrl, 'POST', '/v1/auth/login', {
      body: adminCookieOrCredentials,
      headers: CSRF,
    });
    expectStatus(login, 200, 'sign-in');
    cookie = sessionCookieOf(login.headers);
  }
  const as = { headers: { cookie, ...CSRF } };
  const project = await call(apiBaseUrl, 'POST', '/v1/projects', { ...as, body: { name } });
  expectStatus(project, 201, 'POST /v1/projects');
  const projectId = (project.body as { id: string }).id;
  const key = await call(apiBaseUrl, 'POST', `/v1/projects/${projectId}/api-keys`, {
    ...as,
    body: { name: `${name} key`, scopes: ['ingest', 'read', 'admin'] },
  });
  expectStatus(key, 201, `POST /v1/projects/${projectId}/api-keys`);
  const switched = await call(apiBaseUrl, 'POST', '/v1/auth/project', { ...as, body: { projectId } });
  expectStatus(switched, 200, 'POST /v1/auth/project');
  return {
    projectId,
    apiKey: (key.body as { secret: string }).secret,
    cookie: sessionCookieOf(switched.headers),
  };
}
