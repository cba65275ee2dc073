import { IntelligenceDraft } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import OpenAI from 'openai';
import { ContentFilterFinishReasonError, LengthFinishReasonError } from 'openai/error';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { SessionInput } from '../types';
import {
  DEFAULT_MAX_FACTS_CHARS,
  DEFAULT_NARRATIVE_MAX_RETRIES,
  DEFAULT_NARRATIVE_TIMEOUT_MS,
  type NarratorConfig,
} from './config';
import { buildNarrativeFacts } from './facts';
import { applyNarrative } from './merge';
import { narrativeMessages } from './prompt';
import { NarrativeReply } from './reply';

/** Writes the narrative texts of a deterministic draft with an OpenAI-compatible model. */
export interface Narrator {
  /** The model named in `generator` (`llm:<model>`) on success. */
  readonly model: string;
  /**
   * Sends the draft's structured facts to the model and returns a copy of the draft whose summary
   * text and story moment texts were written by the model, with `generator: "llm:<model>"`; every
   * event id the model cites is checked against `input.events`. Never rejects: on any failure (HTTP
   * error, timeout, refusal, invalid JSON, schema mismatch) it logs a warning and resolves to `draft`
   * itself, unchanged.
   */
  write(draft: IntelligenceDraft, input: SessionInput): Promise<IntelligenceDraft>;
}

/** Why a narrative fell back to the deterministic draft (the `reason` field of the warning). */
type FailureReason =
  'timeout' | 'http_error' | 'connection_error' | 'refusal' | 'invalid_reply' | 'unexpected';

function classify(err: unknown): FailureReason {
  if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof OpenAI.APIUserAbortError)
    return 'timeout';
  if (err instanceof OpenAI.APIError && err.status !== undefined) return 'http_error';
  if (err instanceof OpenAI.APIConnectionError) return 'connection_error';
  if (err instanceof SyntaxError || (err instanceof Error && err.name === 'ZodError')) return 'invalid_reply';
  if (err instanceof LengthFinishReasonError || err instanceof ContentFilterFinishReasonError)
    return 'invalid_reply';
  return 'unexpected';
}

class Refusal extends Error {}

/**
 * Creates the LLM narrator, or returns null when the narrative is off (neither `apiKey` nor
 * `baseUrl` set — the deterministic texts stay). Nothing is sent at creation.
 * With only `baseUrl` (a local endpoint without auth) no Authorization header is sent.
 * Requests: `POST {baseUrl}/chat/completions` with `response_format: json_schema` (strict), each
 * bounded by `timeoutMs` in total (retries included).
 */
export function createNarrator(config: NarratorConfig, logger: Logger): Narrator | null {
  if (!config.apiKey && !config.baseUrl) return null;
  const log = logger.child({ component: 'narrative', model: config.model });
  const timeoutMs = config.timeoutMs ?? DEFAULT_NARRATIVE_TIMEOUT_MS;
  const maxFactsChars = config.maxFactsChars ?? DEFAULT_MAX_FACTS_CHARS;
  const client = new OpenAI({
    apiKey: config.apiKey || 'none',
    baseURL: config.baseUrl ?? 'https://api.openai.com/v1',
    timeout: timeoutMs,
    maxRetries: config.maxRetries ?? DEFAULT_NARRATIVE_MAX_RETRIES,
    // A local endpoint configured without a key gets no Authorization header at all.
    ...(config.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
  });
  const responseFormat = zodResponseFormat(NarrativeReply, 'session_narrative');

  return {
    model: config.model,
    async write(draft, input) {
      const sessionId = input.session.id;
      const started = performance.now();
      try {
        const { facts, json } = buildNarrativeFacts(draft, input, maxFactsChars);
        const completion = await client.chat.completions.parse(
          { model: config.model, messages: narrativeMessages(json), response_format: responseFormat },
          { signal: AbortSignal.timeout(timeoutMs) },
        );
        const message = completion.choices[0]?.message;
        if (message?.refusal) throw new Refusal(message.refusal);
        if (!message?.parsed) throw new SyntaxError('the reply has no content');
        const sessionEventIds = new Set(input.events.map((e) => e.id));
        const narratable = new Set(facts.moments.map((m) => m.index));
        const result = applyNarrative(draft, message.parsed, sessionEventIds, narratable, config.model);
        const checked = IntelligenceDraft.parse(result.draft);
        log.info(
          {
            sessionId,
            durationMs: Math.round(performance.now() - started),
            factsChars: json.length,
            promptTokens: completion.usage?.prompt_tokens,
            completionTokens: completion.usage?.completion_tokens,
            ...result.stats,
          },
          'narrative written',
        );
        return checked;
      } catch (err) {
        const reason = err instanceof Refusal ? 'refusal' : classify(err);
        log.warn(
          { sessionId, reason, err, durationMs: Math.round(performance.now() - started) },
          'narrative failed; deterministic texts kept',
        );
        return draft;
      }
    },
  };
}
