import type { QueuePayloads } from '@agent-warden/contracts';
import { loadSessionForAnalysis, saveIntelligence, type PrismaClient } from '@agent-warden/db';
import { analyseSession, type Narrator } from '@agent-warden/intelligence';
import type { Logger } from '@agent-warden/observability';
import { checkReadiness, type ReadinessVerdict } from './readiness';

/** What one `session-ready` job did. */
export type AnalysisOutcome =
  | { written: true; version: number; generator: string }
  | { written: false; because: 'session_not_found' | Extract<ReadinessVerdict, { ready: false }>['because'] };

/**
 * The work of one `session-ready` job: load the session from PostgreSQL, check readiness, run the
 * deterministic analysers, let the narrator (when configured) rewrite the texts, and store a new
 * version. Idempotent in effect: a re-delivered job writes one more identical version. Errors
 * (database unreachable, an analyser bug) propagate so the queue retries the job.
 */
export async function analyseAndStore(
  deps: { db: PrismaClient; logger: Logger; narrator: Narrator | null },
  job: QueuePayloads['session-ready'],
): Promise<AnalysisOutcome> {
  const { projectId, sessionId, reason } = job;
  const input = await loadSessionForAnalysis(deps.db, projectId, sessionId);
  if (!input) return { written: false, because: 'session_not_found' };
  const verdict = checkReadiness(input, reason);
  if (!verdict.ready) return { written: false, because: verdict.because };
  let draft = analyseSession(input);
  if (deps.narrator) draft = await deps.narrator.write(draft, input);
  const saved = await saveIntelligence(deps.db, {
    projectId,
    sessionId,
    reason,
    draft,
    eventCount: input.events.length,
    lastEventAt: new Date(input.session.lastEventAt),
  });
  return { written: true, version: saved.version, generator: saved.generator };
}
