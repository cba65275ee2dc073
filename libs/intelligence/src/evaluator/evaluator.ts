import { createHash } from 'node:crypto';
import type { ActionItem, Severity } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { zodResponseFormat } from 'openai/helpers/zod';
import { MAX_EVIDENCE } from '../action-items';
import { classifyLlmError, createChatClient, llmConfigured, Refusal } from '../llm/client';
import { DEFAULT_NARRATIVE_TIMEOUT_MS } from '../narrative/config';
import { clip } from '../text';
import type { SessionInput } from '../types';
import { DEFAULT_MAX_TRANSCRIPT_CHARS, type EvaluatorConfig } from './config';
import { evaluatorMessages } from './prompt';
import { EvaluationReply, type EvaluatorCauseKind } from './reply';
import { buildTranscript, type Transcript } from './transcript';

/** Name of the score the evaluator gives a session: boolean, true when the goal was achieved. */
export const EVALUATOR_SCORE_NAME = 'goal_achieved';
/** Kind of the action items the evaluator adds (contracts `ActionItemKind`). */
export const EVALUATOR_ITEM_KIND = 'evaluator_failure_cause' as const;

/** What the model evaluator found in one session. */
export interface SessionEvaluation {
  /** `llm:<model>`. */
  generator: string;
  verdict: EvaluationReply['verdict'];
  /** The model's one sentence on the verdict. */
  reason: string;
  /** One `evaluator_failure_cause` item per cause whose cited entries exist (failed sessions only). */
  items: ActionItem[];
  /** The `goal_achieved` score (boolean, source `evaluator`); null when the verdict is `unclear`. */
  score: { name: string; value: boolean; comment: string } | null;
}

/** Judges whole sessions with an OpenAI-compatible model. */
export interface SessionEvaluator {
  /** The model's name (`WARDEN_LLM_MODEL`). */
  readonly model: string;
  /**
   * Sends the session's numbered transcript ({@link buildTranscript}) to the model and returns its
   * verdict, its causes as action items (each citing the events of the entries the model named;
   * a cause citing no existing entry is dropped) and the `goal_achieved` score. Resolves to null
   * without a request for a session outside the sample (`sampleRate`). Never rejects: on any
   * failure (HTTP error, timeout, refusal, invalid JSON, schema mismatch) it logs a warning and
   * resolves to null.
   */
  evaluate(input: SessionInput): Promise<SessionEvaluation | null>;
}

const TITLE: Record<EvaluatorCauseKind, string> = {
  wrong_value: 'A call used another value than the one asked for',
  forbidden_action: 'An action its rules or data did not allow',
  incomplete: 'Only part of the request was done',
  not_done: 'The request was not carried out',
  unrequested_action: 'An action nobody asked for',
  false_claim: 'A claim the record contradicts',
  other: 'The session did not achieve its goal',
};

const SEVERITY: Record<EvaluatorCauseKind, Severity> = {
  wrong_value: 'high',
  forbidden_action: 'high',
  incomplete: 'medium',
  not_done: 'medium',
  unrequested_action: 'high',
  false_claim: 'high',
  other: 'medium',
};

/**
 * The reply as action items and a score: causes only for a `failed` verdict, each with the event ids
 * of the entries it cites that exist (at most {@link MAX_EVIDENCE}); causes citing none are dropped
 * and counted in `dropped`. Pure.
 */
export function evaluationOf(
  reply: EvaluationReply,
  transcript: Transcript,
  model: string,
): SessionEvaluation & { dropped: number } {
  const byRef = new Map(transcript.entries.map((e) => [e.ref, e.eventIds]));
  const items: ActionItem[] = [];
  let dropped = 0;
  const causes = reply.verdict === 'failed' ? reply.causes : [];
  for (const c of causes) {
    const ids = [...new Set(c.entries.flatMap((ref) => byRef.get(ref) ?? []))].slice(0, MAX_EVIDENCE);
    const explanation = clip(c.explanation, 1_000);
    if (ids.length === 0 || explanation.length === 0) {
      dropped++;
      continue;
    }
    items.push({
      kind: EVALUATOR_ITEM_KIND,
      severity: SEVERITY[c.kind],
      title: `${TITLE[c.kind]} (model evaluator)`,
      detail: `${explanation} Judged by the model ${model} from the session's transcript (cause: ${c.kind}); a draft to check against the cited events.`,
      evidenceEventIds: ids,
    });
  }
  const reason = clip(reply.reason, 1_000);
  return {
    generator: `llm:${model}`,
    verdict: reply.verdict,
    reason,
    items,
    score:
      reply.verdict === 'unclear'
        ? null
        : { name: EVALUATOR_SCORE_NAME, value: reply.verdict === 'achieved', comment: reason },
    dropped,
  };
}

/**
 * Whether a session is in the judged sample: the first 4 bytes of SHA-256 of its id, read as an
 * unsigned integer over 2^32, are below `rate` (in (0, 1]). The same id always gives the same answer.
 */
export function inSample(sessionId: string, rate: number): boolean {
  if (rate >= 1) return true;
  return createHash('sha256').update(sessionId).digest().readUInt32BE(0) / 2 ** 32 < rate;
}

/**
 * Creates the model evaluator, or returns null when no endpoint is configured (neither `apiKey` nor
 * `baseUrl`). Requests: `POST {baseUrl}/chat/completions` with `response_format: json_schema`
 * (strict), bounded by `timeoutMs` (default 30000 ms) in total; a session outside the sample
 * (`sampleRate`, {@link inSample}) is not sent and resolves to null. docs/intelligence.md "The model
 * evaluator".
 */
export function createSessionEvaluator(config: EvaluatorConfig, logger: Logger): SessionEvaluator | null {
  if (!llmConfigured(config)) return null;
  const log = logger.child({ component: 'evaluator', model: config.model });
  const timeoutMs = config.timeoutMs ?? DEFAULT_NARRATIVE_TIMEOUT_MS;
  const maxChars = config.maxTranscriptChars ?? DEFAULT_MAX_TRANSCRIPT_CHARS;
  const client = createChatClient(config);
  const responseFormat = zodResponseFormat(EvaluationReply, 'session_evaluation');
  const sampleRate = config.sampleRate ?? 1;
  return {
    model: config.model,
    async evaluate(input) {
      const sessionId = input.session.id;
      if (!inSample(sessionId, sampleRate)) {
        log.debug({ sessionId, sampleRate }, 'session outside the evaluated sample');
        return null;
      }
      const started = performance.now();
      try {
        const transcript = buildTranscript(input, maxChars);
        const completion = await client.chat.completions.parse(
          {
            model: config.model,
            messages: evaluatorMessages(transcript.text),
            response_format: responseFormat,
          },
          { signal: AbortSignal.timeout(timeoutMs) },
        );
        const message = completion.choices[0]?.message;
        if (message?.refusal) throw new Refusal(message.refusal);
        if (!message?.parsed) throw new SyntaxError('the reply has no content');
        const { dropped, ...evaluation } = evaluationOf(message.parsed, transcript, config.model);
        log.info(
          {
            sessionId,
            verdict: evaluation.verdict,
            causes: evaluation.items.length,
            droppedCauses: dropped,
            transcriptChars: transcript.text.length,
            omittedEntries: transcript.omitted,
            durationMs: Math.round(performance.now() - started),
            promptTokens: completion.usage?.prompt_tokens,
            completionTokens: completion.usage?.completion_tokens,
          },
          'session evaluated',
        );
        return evaluation;
      } catch (err) {
        log.warn(
          {
            sessionId,
            reason: classifyLlmError(err),
            err,
            durationMs: Math.round(performance.now() - started),
          },
          'evaluation failed; no evaluator items or score',
        );
        return null;
      }
    },
  };
}
