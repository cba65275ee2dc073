import { z } from 'zod';
import { ClientId, Timestamp } from './common';

/**
 * Scores: the outcome of a session or of one of its runs, as a name and a value, following
 * Langfuse's score model (https://langfuse.com/docs/evaluation/evaluation-methods/custom-scores):
 * `name`, `value`, `dataType` NUMERIC / BOOLEAN / CATEGORICAL (here lower-case), `source`,
 * `comment`, and an optional client-made id that makes a retry idempotent. An agent sends one as
 * the event `agent.score.recorded`; a person or an API key sets one with
 * `POST /v1/sessions/{sessionId}/scores` (docs/architecture.md#scores).
 */

/** What a score's value is: a finite number, a boolean, or a category (a label of 1–200 characters). */
export const ScoreDataType = z.enum(['numeric', 'boolean', 'categorical']);
export type ScoreDataType = z.infer<typeof ScoreDataType>;

/**
 * Who gave the score: `human` (a person, by hand), `rule` (code: a check, a test, the task's own
 * outcome), `evaluator` (a model or an evaluation pipeline judging the session).
 */
export const ScoreSource = z.enum(['human', 'rule', 'evaluator']);
export type ScoreSource = z.infer<typeof ScoreSource>;

/** Longest score name and categorical value, characters. */
export const SCORE_NAME_MAX = 200;
/** Longest score comment, characters. */
export const SCORE_COMMENT_MAX = 2000;

/** A score's value: a finite number (`numeric`), a boolean, or a category string (1–200 characters). */
export const ScoreValue = z.union([z.number(), z.boolean(), z.string().min(1).max(SCORE_NAME_MAX)]);
export type ScoreValue = z.infer<typeof ScoreValue>;

/** The data type a value has on its own (number → numeric, boolean → boolean, string → categorical). */
export function scoreDataTypeOf(value: ScoreValue): ScoreDataType {
  if (typeof value === 'number') return 'numeric';
  if (typeof value === 'boolean') return 'boolean';
  return 'categorical';
}

const VALUE_KIND: Record<ScoreDataType, string> = {
  numeric: 'number',
  boolean: 'boolean',
  categorical: 'string',
};

/** Adds an issue at `value` when it does not have the declared `dataType` (zod 4's number is finite already). */
function checkValue(s: { value: ScoreValue; dataType: ScoreDataType }, ctx: z.core.$RefinementCtx): void {
  if (scoreDataTypeOf(s.value) !== s.dataType)
    ctx.addIssue({
      code: 'custom',
      path: ['value'],
      message: `a ${s.dataType} score needs a ${VALUE_KIND[s.dataType]} value`,
    });
}

const scoreFields = {
  /** Client-made id (UUIDv7); the same id is stored once (a retry, a replay). Default: the event's id. */
  scoreId: ClientId.optional(),
  name: z.string().min(1).max(SCORE_NAME_MAX),
  value: ScoreValue,
  dataType: ScoreDataType,
  source: ScoreSource,
  comment: z.string().max(SCORE_COMMENT_MAX).optional(),
};

/**
 * `data` of `agent.score.recorded`. The score is on the event's run when the envelope has a
 * `runId`, else on its session. `value` must have the type `dataType` names.
 */
export const ScoreEventData = z.object(scoreFields).superRefine(checkValue);

/**
 * `POST /v1/sessions/{sessionId}/scores` body: a score set by a person or an API key, on the
 * session or on one of its runs (`runId`). `source` defaults to `human`. Idempotent by `scoreId`:
 * the same id is stored once and answered with the stored score.
 */
export const ScoreRequest = z
  .object({
    ...scoreFields,
    source: ScoreSource.default('human'),
    runId: ClientId.optional(),
  })
  .superRefine(checkValue)
  .meta({ id: 'ScoreRequest' });
export type ScoreRequest = z.infer<typeof ScoreRequest>;

/** A stored score, as the read API returns it. */
export const ScoreView = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    /** The run it scores; null: the whole session. */
    runId: z.string().nullable(),
    agentId: z.string(),
    agentVersionId: z.string(),
    name: z.string(),
    value: ScoreValue,
    dataType: ScoreDataType,
    source: ScoreSource,
    comment: z.string().nullable(),
    /**
     * Who set it: `agent` (sent by the agent's client as an event), `user:<email>` or
     * `api-key:<id>` (the scores route).
     */
    author: z.string(),
    /** The `agent.score.recorded` event that carried it; null when set through the API. */
    eventId: z.string().nullable(),
    /** When it was given (the event's time, or when the API stored it). */
    time: Timestamp,
  })
  .meta({ id: 'Score' });
export type ScoreView = z.infer<typeof ScoreView>;

/** Most scores `GET /v1/sessions/{sessionId}/scores` answers (oldest first). */
export const SESSION_SCORES_MAX = 1000;
