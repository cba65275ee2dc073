import { IntelligenceDraft } from '@agent-warden/contracts';
import type { Logger } from '@agent-warden/observability';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { SessionInput } from '../types';
import { classifyLlmError, createChatClient, llmConfigured, Refusal } from '../llm/client';
import { DEFAULT_MAX_FACTS_CHARS, DEFAULT_NARRATIVE_TIMEOUT_MS, type NarratorConfig } from './config';
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

/**
 * Creates the LLM narrator, or returns null when the narrative is off (neither `apiKey` nor
 * `baseUrl` set — the deterministic texts stay). Nothing is sent at creation.
 * With only `baseUrl` (a local endpoint without auth) no Authorization header is sent.
 * Requests: `POST {baseUrl}/chat/completions` with `response_format: json_schema` (strict), each
 * bounded by `timeoutMs` in total (retries included).
 */
export function createNarrator(config: NarratorConfig, logger: Logger): Narrator | null {
  if (!llmConfigured(config)) return null;
  const log = logger.child({ component: 'narrative', model: config.model });
  const timeoutMs = config.timeoutMs ?? DEFAULT_NARRATIVE_TIMEOUT_MS;
  const maxFactsChars = config.maxFactsChars ?? DEFAULT_MAX_FACTS_CHARS;
  const client = createChatClient(config);
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
        const reason = classifyLlmError(err);
        log.warn(
          { sessionId, reason, err, durationMs: Math.round(performance.now() - started) },
          'narrative failed; deterministic texts kept',
        );
        return draft;
      }
    },
  };
}
