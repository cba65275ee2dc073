/**
 * The optional model evaluator (docs/intelligence.md "The model evaluator"): a model reads the
 * session's numbered transcript and says whether the goal was achieved and, if not, why; its causes
 * become `evaluator_failure_cause` action items citing events, and its verdict a `goal_achieved` score.
 */
export {
  createSessionEvaluator,
  evaluationOf,
  inSample,
  EVALUATOR_ITEM_KIND,
  EVALUATOR_SCORE_NAME,
  type SessionEvaluation,
  type SessionEvaluator,
} from './evaluator';
export { evaluatorConfigFromEnv, DEFAULT_MAX_TRANSCRIPT_CHARS, type EvaluatorConfig } from './config';
export { buildTranscript, type Transcript, type TranscriptEntry } from './transcript';
export { EvaluationReply, EVALUATOR_CAUSE_KINDS, type EvaluatorCauseKind } from './reply';
export { EVALUATOR_SYSTEM_PROMPT } from './prompt';
