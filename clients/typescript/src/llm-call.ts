import { isUuidV7, LLM_TOKENS_MAX } from '@agent-warden/contracts';
import type { JsonObject } from '@agent-warden/contracts';
import type { Scope } from './context';
import { errorFields } from './logger';
import type { Runtime } from './runtime';
import { truncate } from './serialize';

/**
 * One model invocation for `trackLlmCall(...)`, sent as `agent.llm.called` (docs/architecture.md#llm-calls;
 * field names follow the OpenTelemetry GenAI conventions, see libs/contracts/src/llm.ts).
 */
export interface LlmCallInput {
  /** The requested model (`gen_ai.request.model`), e.g. `gpt-4o-mini`. */
  model: string;
  /** The provider (`gen_ai.provider.name`), e.g. `openai`, `anthropic`. */
  provider?: string;
  /** `gen_ai.operation.name`: `chat` (default), `text_completion`, `generate_content`, `embeddings`. */
  operation?: string;
  /** The model that answered (`gen_ai.response.model`), e.g. a dated snapshot. */
  responseModel?: string;
  /** Input (prompt) tokens, integer ≥ 0. */
  inputTokens?: number;
  /** Output (completion) tokens, integer ≥ 0. */
  outputTokens?: number;
  /** Input tokens served from the provider's prompt cache (part of `inputTokens`). */
  cachedInputTokens?: number;
  /** Latency of the call, ms. */
  durationMs?: number;
  /** What the call cost, USD, when the caller knows; otherwise the service prices it from its table. */
  costUsd?: number;
  /** `gen_ai.response.finish_reasons`, e.g. `['stop']`, `['tool_calls']`. */
  finishReasons?: string[];
  /** Set when the call failed: an Error (its name becomes `type`) or `{ message, type? }`. */
  error?: unknown;
  /** Other request parameters (temperature, max tokens…). */
  attributes?: JsonObject;
  /** Id (UUIDv7) that makes the call idempotent across sends. Default: the event's id. */
  llmCallId?: string;
}

/** `{ message, type? }` of an Error, a `{ message, type }` object or anything else (its text). */
function errorInfo(e: unknown): { message: string; type?: string } {
  if (e instanceof Error) return { message: truncate(e.message, 10_000) ?? '', type: truncate(e.name, 200) };
  if (e && typeof e === 'object' && 'message' in e) {
    const o = e as { message: unknown; type?: unknown };
    return {
      message: truncate(String(o.message), 10_000) ?? '',
      ...(o.type !== undefined ? { type: truncate(String(o.type), 200) } : {}),
    };
  }
  return { message: truncate(String(e), 10_000) ?? '' };
}

/** Why `input` cannot be an LLM call, or undefined when it can. */
function invalidLlmCall(input: LlmCallInput): string | undefined {
  if (!input || typeof input.model !== 'string' || input.model.length === 0)
    return 'model must be a non-empty string';
  for (const k of ['inputTokens', 'outputTokens', 'cachedInputTokens'] as const) {
    const v = input[k];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= LLM_TOKENS_MAX))
      return `${k} must be an integer from 0 to ${LLM_TOKENS_MAX}`;
  }
  for (const k of ['durationMs', 'costUsd'] as const) {
    const v = input[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0))
      return `${k} must be a finite number ≥ 0`;
  }
  if (input.llmCallId !== undefined && !isUuidV7(input.llmCallId)) return 'llmCallId must be a UUIDv7';
  return undefined;
}

/**
 * `agent.llm.called` in `scope` (its run when it has one, else the session). Returns the event id, or
 * '' when the input cannot be an LLM call (empty model, tokens not integers ≥ 0, a negative or
 * non-finite duration or cost, an `llmCallId` that is not a UUIDv7): then nothing is sent and an
 * error is logged. Never throws.
 */
export function recordLlmCall(rt: Runtime, scope: Scope, input: LlmCallInput): string {
  try {
    const problem = invalidLlmCall(input);
    if (problem) {
      rt.logger.error('warden llm call not recorded', { model: String(input?.model), reason: problem });
      return '';
    }
    const opt = <T>(k: string, v: T | undefined) => (v === undefined ? {} : { [k]: v });
    return rt.recorder.emit(
      'agent.llm.called',
      {
        ...opt('llmCallId', input.llmCallId),
        operation: truncate(input.operation ?? 'chat', 100) ?? 'chat',
        ...opt('provider', truncate(input.provider, 100)),
        model: truncate(input.model, 200) ?? input.model,
        ...opt('responseModel', truncate(input.responseModel, 200)),
        ...opt('inputTokens', input.inputTokens),
        ...opt('outputTokens', input.outputTokens),
        ...opt('cachedInputTokens', input.cachedInputTokens),
        ...opt('durationMs', input.durationMs),
        ...opt('costUsd', input.costUsd),
        ...opt(
          'finishReasons',
          input.finishReasons?.slice(0, 20).map((r) => truncate(String(r), 100) ?? ''),
        ),
        ...opt('error', input.error === undefined ? undefined : errorInfo(input.error)),
        ...opt('attributes', input.attributes),
      },
      { sessionId: scope.sessionId, runId: scope.runId },
    );
  } catch (e) {
    rt.logger.error('warden could not track event', { type: 'agent.llm.called', ...errorFields(e) });
    return '';
  }
}
