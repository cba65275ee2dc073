import OpenAI from 'openai';
import { ContentFilterFinishReasonError, LengthFinishReasonError } from 'openai/error';
import {
  DEFAULT_NARRATIVE_MAX_RETRIES,
  DEFAULT_NARRATIVE_TIMEOUT_MS,
  type NarratorConfig,
} from '../narrative/config';

/**
 * The OpenAI-compatible chat client that the narrative and the evaluator share
 * (docs/architecture.md#runtime-intelligence). Nothing is sent at creation. With only `baseUrl` (a
 * local endpoint without auth) no Authorization header is sent. Each request is bounded by
 * `timeoutMs` (default 30000 ms) in total, retries (default 1, on 408/429/5xx/network errors)
 * included.
 */
export function createChatClient(config: NarratorConfig): OpenAI {
  return new OpenAI({
    apiKey: config.apiKey || 'none',
    baseURL: config.baseUrl ?? 'https://api.openai.com/v1',
    timeout: config.timeoutMs ?? DEFAULT_NARRATIVE_TIMEOUT_MS,
    maxRetries: config.maxRetries ?? DEFAULT_NARRATIVE_MAX_RETRIES,
    // A local endpoint configured without a key gets no Authorization header at all.
    ...(config.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
  });
}

/** Whether a model call is on: a key or a base URL is configured. */
export function llmConfigured(config: NarratorConfig): boolean {
  return Boolean(config.apiKey || config.baseUrl);
}

/** The model declined to answer (`message.refusal`). */
export class Refusal extends Error {}

/** Why a model call fell back to the deterministic output (the `reason` field of the warning). */
export type LlmFailureReason =
  'timeout' | 'http_error' | 'connection_error' | 'refusal' | 'invalid_reply' | 'unexpected';

/** Sorts an error of a model call into a {@link LlmFailureReason}. */
export function classifyLlmError(err: unknown): LlmFailureReason {
  if (err instanceof Refusal) return 'refusal';
  if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof OpenAI.APIUserAbortError)
    return 'timeout';
  if (err instanceof OpenAI.APIError && err.status !== undefined) return 'http_error';
  if (err instanceof OpenAI.APIConnectionError) return 'connection_error';
  if (err instanceof SyntaxError || (err instanceof Error && err.name === 'ZodError')) return 'invalid_reply';
  if (err instanceof LengthFinishReasonError || err instanceof ContentFilterFinishReasonError)
    return 'invalid_reply';
  return 'unexpected';
}
