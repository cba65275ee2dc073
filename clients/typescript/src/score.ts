import {
  isUuidV7,
  SCORE_COMMENT_MAX,
  SCORE_NAME_MAX,
  scoreDataTypeOf,
  type ScoreDataType,
  type ScoreSource,
} from '@agent-warden/contracts';
import type { Scope } from './context';
import { errorFields } from './logger';
import type { Runtime } from './runtime';
import { truncate } from './serialize';

/** A score for `score(...)`: the outcome of the current run, else of the session (docs/architecture.md#scores). */
export interface ScoreInput {
  /** What is scored, e.g. `task_succeeded`, `reward` (1–200 characters; longer is cut). */
  name: string;
  /** A finite number, a boolean, or a category label (1–200 characters; longer is cut). */
  value: number | boolean | string;
  /** Who judged: `rule` (code, the default), `human` or `evaluator`. */
  source?: ScoreSource;
  /** Free text (≤ 2,000 characters; longer is cut). */
  comment?: string;
  /** Id (UUIDv7) that makes the score idempotent across sends (a replay). Default: the event's id. */
  scoreId?: string;
}

/**
 * `agent.score.recorded` in `scope` (on its run when it has one, else on the session), `dataType`
 * inferred from the value. Returns the event id (the score's id when no `scoreId` is given), or ''
 * when the input cannot be a score (a non-finite number, an empty name or label, a `scoreId` that is
 * not a UUIDv7): then nothing is sent and an error is logged. Never throws.
 */
export function recordScore(rt: Runtime, scope: Scope, input: ScoreInput): string {
  try {
    const problem = invalidScore(input);
    if (problem) {
      rt.logger.error('warden score not recorded', { name: String(input?.name), reason: problem });
      return '';
    }
    const dataType: ScoreDataType = scoreDataTypeOf(input.value);
    const value =
      typeof input.value === 'string' ? (truncate(input.value, SCORE_NAME_MAX) ?? '') : input.value;
    return rt.recorder.emit(
      'agent.score.recorded',
      {
        ...(input.scoreId ? { scoreId: input.scoreId } : {}),
        name: truncate(input.name, SCORE_NAME_MAX) ?? input.name,
        value,
        dataType,
        source: input.source ?? 'rule',
        ...(input.comment !== undefined
          ? { comment: truncate(String(input.comment), SCORE_COMMENT_MAX) }
          : {}),
      },
      { sessionId: scope.sessionId, runId: scope.runId },
    );
  } catch (e) {
    rt.logger.error('warden could not track event', { type: 'agent.score.recorded', ...errorFields(e) });
    return '';
  }
}

/** Why `input` cannot be a score, or undefined when it can. */
function invalidScore(input: ScoreInput): string | undefined {
  if (!input || typeof input.name !== 'string' || input.name.length === 0)
    return 'name must be a non-empty string';
  const v = input.value;
  if (typeof v === 'number' && !Number.isFinite(v)) return 'value must be a finite number';
  if (typeof v === 'string' && v.length === 0) return 'a categorical value must not be empty';
  if (typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'string')
    return 'value must be a number, a boolean or a string';
  if (input.source !== undefined && !['human', 'rule', 'evaluator'].includes(input.source))
    return 'source must be human, rule or evaluator';
  if (input.scoreId !== undefined && !isUuidV7(input.scoreId)) return 'scoreId must be a UUIDv7';
  return undefined;
}
