import { BoolEnv, ConfigError, parseEnv } from '@agent-warden/config';
import { z } from 'zod';
import { narratorConfigFromEnv, type NarratorConfig } from '../narrative/config';

/** Default cap of the transcript sent to the evaluator, characters (`WARDEN_LLM_MAX_TRANSCRIPT_CHARS`). */
export const DEFAULT_MAX_TRANSCRIPT_CHARS = 24_000;

/**
 * Configuration of the model evaluator (docs/intelligence.md "The model evaluator"): the narrative's
 * OpenAI-compatible endpoint and model, and the transcript's cap.
 */
export interface EvaluatorConfig extends NarratorConfig {
  /** Cap of the transcript sent to the model, characters; default 24000. */
  maxTranscriptChars?: number;
  /**
   * Share of sessions judged, in (0, 1]; default 1 (all). Which sessions is decided by a hash of the
   * session id, so every analysis of one session is judged, or none.
   */
  sampleRate?: number;
}

const EvaluatorEnv = z.object({
  WARDEN_LLM_EVALUATOR: BoolEnv.default(false),
  WARDEN_LLM_MAX_TRANSCRIPT_CHARS: z.coerce.number().int().min(2_000).default(DEFAULT_MAX_TRANSCRIPT_CHARS),
  WARDEN_LLM_EVALUATOR_SAMPLE: z.coerce.number().gt(0).max(1).default(1),
});

/**
 * Reads the evaluator's configuration: off (null) unless `WARDEN_LLM_EVALUATOR` is true (`true|1|yes|on`);
 * then the endpoint and model of the narrative (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `WARDEN_LLM_MODEL`,
 * `WARDEN_LLM_TIMEOUT_MS`, `WARDEN_LLM_MAX_RETRIES`), `WARDEN_LLM_MAX_TRANSCRIPT_CHARS` (default 24000,
 * at least 2000) and `WARDEN_LLM_EVALUATOR_SAMPLE` (share of sessions judged, in (0, 1], default 1).
 * @throws ConfigError (code `invalid_configuration`) naming each invalid variable, or
 *   `WARDEN_LLM_EVALUATOR` when it is on and neither `OPENAI_API_KEY` nor `OPENAI_BASE_URL` is set
 */
export function evaluatorConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EvaluatorConfig | null {
  const e = parseEnv(EvaluatorEnv, env);
  if (!e.WARDEN_LLM_EVALUATOR) return null;
  const llm = narratorConfigFromEnv(env);
  if (!llm.apiKey && !llm.baseUrl) {
    const message = 'needs OPENAI_API_KEY or OPENAI_BASE_URL (the model endpoint)';
    throw new ConfigError(`invalid configuration: WARDEN_LLM_EVALUATOR: ${message}`, [
      { variable: 'WARDEN_LLM_EVALUATOR', message },
    ]);
  }
  return {
    ...llm,
    maxTranscriptChars: e.WARDEN_LLM_MAX_TRANSCRIPT_CHARS,
    sampleRate: e.WARDEN_LLM_EVALUATOR_SAMPLE,
  };
}
