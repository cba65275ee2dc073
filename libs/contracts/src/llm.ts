import { z } from 'zod';
import { ClientId, JsonObject } from './common';

/**
 * LLM calls: one model invocation (a chat completion, a text completion, an embedding…) as the
 * event `agent.llm.called`, named after the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): `operation` is
 * `gen_ai.operation.name`, `provider` `gen_ai.provider.name` (formerly `gen_ai.system`), `model`
 * `gen_ai.request.model`, `responseModel` `gen_ai.response.model`, `inputTokens` / `outputTokens`
 * `gen_ai.usage.input_tokens` / `gen_ai.usage.output_tokens`, `finishReasons`
 * `gen_ai.response.finish_reasons`, `error.type` `error.type`. OpenInference LLM spans map onto the
 * same fields (`llm.model_name`, `llm.provider`, `llm.token_count.prompt` / `.completion`). The
 * cost rule is in docs/architecture.md#llm-calls.
 */

/** Largest token count accepted per call (a bound for the int columns, not a model limit). */
export const LLM_TOKENS_MAX = 2_000_000_000;

/**
 * `gen_ai.operation.name` values of the GenAI conventions that are model calls, plus any other
 * string a newer convention adds (kept as given, 1–100 characters).
 */
export const LLM_OPERATIONS = ['chat', 'text_completion', 'generate_content', 'embeddings'] as const;

const tokens = z.number().int().min(0).max(LLM_TOKENS_MAX);

/**
 * Payload of `agent.llm.called`, sent once the call ended (successfully or not).
 * - `llmCallId`: client-made id (UUIDv7) of this call; default the event's id.
 * - `durationMs`: wall-clock latency of the call, ms (first request byte to last response byte).
 * - `costUsd`: the cost the caller knows (e.g. from the provider's bill), USD. When absent the
 *   service prices the call from its price table (model × tokens); see docs/architecture.md#llm-calls.
 * - `cachedInputTokens`: input tokens served from the provider's prompt cache (part of `inputTokens`).
 * - `error`: set when the call failed; `error.type` is the class or provider code (`error.type` in OTel).
 */
export const LlmCallEventData = z.object({
  llmCallId: ClientId.optional(),
  operation: z.string().min(1).max(100).default('chat'),
  provider: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200),
  responseModel: z.string().min(1).max(200).optional(),
  inputTokens: tokens.optional(),
  outputTokens: tokens.optional(),
  cachedInputTokens: tokens.optional(),
  durationMs: z.number().nonnegative().optional(),
  costUsd: z.number().nonnegative().max(1_000_000).optional(),
  finishReasons: z.array(z.string().max(100)).max(20).optional(),
  error: z
    .object({
      message: z.string().max(10_000),
      type: z.string().max(200).optional(),
    })
    .optional(),
  /** Other request parameters worth keeping (temperature, max_tokens…), as `gen_ai.request.*` names them. */
  attributes: JsonObject.optional(),
});
export type LlmCallEventData = z.infer<typeof LlmCallEventData>;
