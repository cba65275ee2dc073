import { createHash } from 'node:crypto';
import type { PrismaClient } from './client';
import { insertScores } from './scores';

/**
 * A name-based UUID (RFC 9562 §5.5, version 5: SHA-1 of a namespace and a name) for the evaluator's
 * score of one state of a session, so a re-delivered job stores it once.
 */
function scoreIdOf(name: string): string {
  // The namespace is a fixed UUID of our own (docs/intelligence.md "The model evaluator").
  const ns = Buffer.from('3f1c1f2e6a8b4c5e9d0a7b6c5d4e3f21', 'hex');
  const h = createHash('sha1').update(ns).update(name, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

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
 * per (session, event count, name, generator): its id is derived from them, so the same job run
 * again inserts nothing. The agent and version come from the session row. Returns whether a row was
 * inserted; false too when the session is gone (deleted between the analysis and now).
 */
export async function recordEvaluatorScore(db: PrismaClient, s: EvaluatorScoreInput): Promise<boolean> {
  const session = await db.session.findUnique({
    where: { projectId_id: { projectId: s.projectId, id: s.sessionId } },
    select: { agentId: true, agentVersionId: true },
  });
  if (!session) return false;
  const inserted = await insertScores(db, [
    {
      id: scoreIdOf(`${s.projectId}/${s.sessionId}/${s.eventCount}/${s.name}/${s.generator}`),
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
