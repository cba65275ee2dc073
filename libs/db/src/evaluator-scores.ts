import { nameBasedUuidV7 } from '@agent-warden/contracts';
import type { PrismaClient } from './client';
import { insertScores } from './scores';

/** A model evaluator's verdict on a session, as a boolean score. */
export interface EvaluatorScoreInput {
  projectId: string;
  sessionId: string;
  /** The session's event count when it was judged: one score per state of the session. */
  eventCount: number;
  /** When the judged state ended: the session's last event time; the score's `time`. */
  judgedUpTo: Date;
  /** Score name, e.g. `goal_achieved`. */
  name: string;
  value: boolean;
  /** The model's reason, at most 2000 characters (contracts `SCORE_COMMENT_MAX`). */
  comment: string;
  /** `llm:<model>`; the score's author is `evaluator:llm:<model>`. */
  generator: string;
}

/**
 * Stores the evaluator's score on a session (source `evaluator`, docs/architecture.md#scores), once
 * per (session, event count, name, generator): its id is the contracts' name-based UUIDv7 of them
 * (`nameBasedUuidV7`), so the same job run again inserts nothing. The agent and version come from
 * the session row. Returns whether a row was inserted; false too when the session is gone (deleted
 * between the analysis and now).
 */
export async function recordEvaluatorScore(db: PrismaClient, s: EvaluatorScoreInput): Promise<boolean> {
  const session = await db.session.findUnique({
    where: { projectId_id: { projectId: s.projectId, id: s.sessionId } },
    select: { agentId: true, agentVersionId: true },
  });
  if (!session) return false;
  const inserted = await insertScores(db, [
    {
      id: nameBasedUuidV7(
        `evaluator-score/${s.projectId}/${s.sessionId}/${s.eventCount}/${s.name}/${s.generator}`,
      ),
      projectId: s.projectId,
      sessionId: s.sessionId,
      runId: null,
      agentId: session.agentId,
      agentVersionId: session.agentVersionId,
      name: s.name,
      dataType: 'boolean',
      numericValue: s.value ? 1 : 0,
      stringValue: null,
      source: 'evaluator',
      comment: s.comment.slice(0, 2_000),
      author: `evaluator:${s.generator}`,
      eventId: null,
      time: s.judgedUpTo,
    },
  ]);
  return inserted.length === 1;
}
