import type { ProjectView } from '@agent-warden/contracts';
import type { ProjectRow, UserRole } from '@agent-warden/db';

/** Wire form of a project (contracts `ProjectView`) with the caller's role in it (null for an API key). */
export function projectView(p: ProjectRow, role: UserRole | null): ProjectView {
  return { id: p.id, name: p.name, role, createdAt: p.createdAt.toISOString() };
}
