import type { QueuePayloads } from '@agent-warden/contracts';
import {
  loadSessionForAnalysis,
  recordEvaluatorScore,
  saveIntelligence,
  type PrismaClient,
} from '@agent-warden/db';
import { analyseSession, type Narrator, type SessionEvaluator } from '@agent-warden/intelligence';
import type { Logger } from '@agent-warden/observability';
import { checkReadiness, type ReadinessVerdict } from './readiness';

/** What one `session-ready` job did. */
export type AnalysisOutcome =
  | { written: true; version: number; generator: string }
  | { written: false; because: 'session_not_found' | Extract<ReadinessVerdict, { ready: false }>['because'] };

/**
 * The work of one `session-ready` job: load the session from PostgreSQL, check readiness, let the
 * model evaluator (when configured) judge it, run the deterministic analysers (the evaluator's causes
 * join their action items), let the narrator (when configured) rewrite the texts, store a new version,
 * then the evaluator's `goal_achieved` score (once per state of the session). Idempotent in effect: a
 * re-delivered job writes one more identical version and no second score. Errors (database
 * unreachable, an analyser bug) propagate so the queue retries the job; a failed model call does not
 * (the evaluator and the narrator fall back).
 */
export async function analyseAndStore(
  deps: { db: PrismaClient; logger: Logger; narrator: Narrator | null; evaluator?: SessionEvaluator | null },
  job: QueuePayloads['session-ready'],
): Promise<AnalysisOutcome> {
  const { projectId, sessionId, reason } = job;
  const input = await loadSessionForAnalysis(deps.db, projectId, sessionId);
  if (!input) return { written: false, because: 'session_not_found' };
  const verdict = checkReadiness(input, reason);
  if (!verdict.ready) return { written: false, because: verdict.because };
  const evaluation = deps.evaluator ? await deps.evaluator.evaluate(input) : null;
  let draft = analyseSession(input, { actionItems: evaluation?.items ?? [] });
  if (deps.narrator) draft = await deps.narrator.write(draft, input);
  const saved = await saveIntelligence(deps.db, {
    projectId,
    sessionId,
    reason,
    draft,
    eventCount: input.events.length,
    lastEventAt: new Date(input.session.lastEventAt),
  });
  if (evaluation?.score)
    await recordEvaluatorScore(deps.db, {
      projectId,
      sessionId,
      eventCount: input.events.length,
      judgedUpTo: new Date(input.session.lastEventAt),
      ...evaluation.score,
      generator: evaluation.generator,
    });
  return { written: true, version: saved.version, generator: saved.generator };
}
