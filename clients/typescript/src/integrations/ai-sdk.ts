/**
 * Vercel AI SDK adapter (`ai` 7: the v4 language model specification):
 * a language model middleware that records every model call as `agent.llm.called`
 * (docs/architecture.md#llm-calls), and a tool wrapper that puts every tool's `execute` behind the
 * guard.
 *
 * ```ts
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
 * import { guardTools, wardenMiddleware } from '@agent-warden/client/src/integrations/ai-sdk';
 *
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: wardenMiddleware(warden) });
 * await warden.withRun({ name: 'pay-invoice', inputSummary: prompt }, () =>
 *   generateText({ model, tools: guardTools(warden, { readInvoice, sendMoney }), prompt, stopWhen: stepCountIs(5) }),
 * );
 * ```
 *
 * Only types come from `ai` (an optional peer dependency): the adapter adds nothing at run time.
 * Inside `warden.withRun(...)` the calls attach to the run (AsyncLocalStorage), else to the session.
 */
import { AsyncResource } from 'node:async_hooks';
import type { LanguageModelMiddleware, ToolSet } from 'ai';
import type { WardenClient } from '../client';
import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  GuardrailBlockedError,
  GuardrailUnavailableError,
} from '../errors';
import type { LlmCallInput } from '../llm-call';
import type { RiskLevel } from '@agent-warden/contracts';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;
type StreamResult = Awaited<ReturnType<WrapStream>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type CallParams = Parameters<WrapGenerate>[0]['params'];
type Model = Parameters<WrapGenerate>[0]['model'];
type Usage = GenerateResult['usage'];

/** Options of {@link wardenMiddleware}. */
export interface WardenMiddlewareOptions {
  /**
   * `gen_ai.provider.name` of the calls. Default: the model's `provider` up to its first dot
   * (`openai.chat` → `openai`).
   */
  provider?: string;
  /**
   * Record the text of the prompt's user messages as trusted sources of provenance
   * (docs/provenance.md "Sources"), so a guarded tool's argument the user typed is not tainted.
   * Default true.
   */
  trustUserMessages?: boolean;
}

/** `gen_ai.response.finish_reasons` value of an AI SDK finish reason (`tool-calls` → `tool_calls`). */
function finishReason(reason: unknown): string | undefined {
  const unified =
    typeof reason === 'string'
      ? reason
      : reason && typeof reason === 'object' && 'unified' in reason
        ? (reason as { unified: unknown }).unified
        : undefined;
  return typeof unified === 'string' ? unified.replace(/-/g, '_') : undefined;
}

/** A token count the contract accepts (an integer ≥ 0), else undefined. */
function tokens(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/** Input / output / cached-input tokens of the v4 usage (`{ inputTokens: { total, cacheRead }, … }`) or the older flat one. */
function usageTokens(
  usage: Usage | undefined,
): Pick<LlmCallInput, 'inputTokens' | 'outputTokens' | 'cachedInputTokens'> {
  if (!usage) return {};
  const u = usage as unknown as Record<string, unknown>;
  const inp = u.inputTokens;
  const out = u.outputTokens;
  const nested = (v: unknown, k: string) =>
    v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return {
    inputTokens: tokens(typeof inp === 'number' ? inp : nested(inp, 'total')),
    outputTokens: tokens(typeof out === 'number' ? out : nested(out, 'total')),
    cachedInputTokens: tokens(nested(inp, 'cacheRead') ?? u.cachedInputTokens),
  };
}

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The text of the prompt's user messages. */
function userTexts(params: CallParams): string[] {
  const texts: string[] = [];
  for (const message of params.prompt ?? []) {
    if (message.role !== 'user') continue;
    for (const part of message.content) if (part.type === 'text' && part.text) texts.push(part.text);
  }
  return texts;
}

/**
 * A language model middleware (`wrapLanguageModel({ model, middleware: wardenMiddleware(warden) })`)
 * that records each `doGenerate` / `doStream` call as `agent.llm.called`: the model id, provider,
 * input / output / cached-input tokens, latency (ms, until the stream's last part), finish reasons,
 * the model that answered, and the error when the call failed (the error is rethrown unchanged).
 * Recording never throws into the model call.
 */
export function wardenMiddleware(
  warden: WardenClient,
  options: WardenMiddlewareOptions = {},
): LanguageModelMiddleware {
  const trust = options.trustUserMessages ?? true;
  const providerOf = (model: Model) => options.provider ?? model.provider.split('.')[0] ?? model.provider;
  const base = (model: Model, params: CallParams): LlmCallInput => {
    const attributes: Record<string, number> = {};
    if (typeof params.temperature === 'number') attributes.temperature = params.temperature;
    if (typeof params.maxOutputTokens === 'number') attributes.maxOutputTokens = params.maxOutputTokens;
    return {
      model: model.modelId,
      provider: providerOf(model),
      attributes: { framework: 'ai-sdk', ...attributes },
    };
  };
  const noteUser = (params: CallParams) => {
    if (trust) for (const text of userTexts(params)) warden.markTrusted(text);
  };

  return {
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate, params, model }) {
      noteUser(params);
      const t0 = performance.now();
      let result: GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        warden.trackLlmCall({ ...base(model, params), durationMs: performance.now() - t0, error });
        throw error;
      }
      const reason = finishReason(result.finishReason);
      warden.trackLlmCall(
        defined({
          ...base(model, params),
          ...usageTokens(result.usage),
          responseModel: result.response?.modelId,
          durationMs: performance.now() - t0,
          finishReasons: reason ? [reason] : undefined,
        }),
      );
      return result;
    },
    async wrapStream({ doStream, params, model }) {
      noteUser(params);
      const t0 = performance.now();
      // The stream is read later, maybe elsewhere: record in the run where the call started.
      const record = AsyncResource.bind((input: LlmCallInput) => warden.trackLlmCall(input));
      let result: StreamResult;
      try {
        result = await doStream();
      } catch (error) {
        record({ ...base(model, params), durationMs: performance.now() - t0, error });
        throw error;
      }
      let usage: Usage | undefined;
      let reason: string | undefined;
      let responseModel: string | undefined;
      let error: unknown;
      let recorded = false;
      const done = () => {
        if (recorded) return;
        recorded = true;
        record(
          defined({
            ...base(model, params),
            ...usageTokens(usage),
            responseModel,
            durationMs: performance.now() - t0,
            finishReasons: reason ? [reason] : undefined,
            error,
          }),
        );
      };
      const watch = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          const p = part as {
            type: string;
            usage?: Usage;
            finishReason?: unknown;
            modelId?: string;
            error?: unknown;
          };
          if (p.type === 'finish') {
            usage = p.usage;
            reason = finishReason(p.finishReason);
          } else if (p.type === 'response-metadata' && p.modelId) {
            responseModel = p.modelId;
          } else if (p.type === 'error') {
            error = p.error;
          }
          controller.enqueue(part);
        },
        flush: done,
        cancel: done,
      });
      return { ...result, stream: result.stream.pipeThrough(watch) };
    },
  };
}

/** Options of {@link guardTools}. */
export interface GuardToolsOptions {
  /** Risk level sent with every call (`low`, `medium`, `high`, `critical`). */
  riskLevel?: RiskLevel;
  /** Action type sent with every call, e.g. `payment.send`. */
  actionType?: string;
  /**
   * What the model gets when the guard stops a call (enforce mode: blocked, approval denied or timed
   * out; or the service unavailable with `failMode: 'closed'`): `'message'` (default) returns why as
   * the tool's output; `'throw'` rethrows the guard's error, which the AI SDK turns into a tool error.
   */
  onBlock?: 'message' | 'throw';
}

/** The errors by which the guard stops a call before it runs. */
function isGuardStop(e: unknown): e is Error {
  return (
    e instanceof GuardrailBlockedError ||
    e instanceof ApprovalDeniedError ||
    e instanceof ApprovalTimeoutError ||
    e instanceof GuardrailUnavailableError
  );
}

/** What the model reads when the guard stopped `tool`: what happened and the matched guardrails' reasons. */
export function stoppedMessage(tool: string, error: Error): string {
  const decision = (error as { decision?: { matchedGuardrails?: { reason?: string }[] } }).decision;
  const reasons = (decision?.matchedGuardrails ?? []).map((g) => g.reason).filter((r): r is string => !!r);
  const why = reasons.length > 0 ? ` Reason: ${reasons.join('; ')}` : '';
  return `Agent Warden stopped the call to ${tool} before it ran (${error.message}).${why} Do not retry it unchanged.`;
}

/**
 * A copy of `tools` (an AI SDK `ToolSet`) whose every `execute` goes through `warden.withTool`
 * first: the guard with the arguments' provenance, `agent.tool.started`, then
 * `agent.tool.completed` with the result or `agent.tool.failed`. A tool's code runs only when the
 * guard lets it (always in monitor mode). Tools without `execute` (client-side tools) pass through.
 * The tool's name is its key in `tools`.
 */
export function guardTools<TOOLS extends ToolSet>(
  warden: WardenClient,
  tools: TOOLS,
  options: GuardToolsOptions = {},
): TOOLS {
  const onBlock = options.onBlock ?? 'message';
  if (onBlock !== 'message' && onBlock !== 'throw')
    throw new TypeError(`onBlock must be 'message' or 'throw', got ${String(onBlock)}`);
  const out: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: (input: unknown, opts: unknown) => unknown }).execute;
    if (typeof execute !== 'function') {
      out[name] = tool;
      continue;
    }
    out[name] = {
      ...tool,
      execute: async (input: unknown, opts: unknown) => {
        try {
          return await warden.withTool(
            {
              name,
              arguments: input && typeof input === 'object' ? (input as Record<string, unknown>) : { input },
              ...(options.riskLevel ? { riskLevel: options.riskLevel } : {}),
              ...(options.actionType ? { actionType: options.actionType } : {}),
            },
            () => execute.call(tool, input, opts),
          );
        } catch (e) {
          if (onBlock === 'message' && isGuardStop(e)) return stoppedMessage(name, e);
          throw e;
        }
      },
    };
  }
  return out as TOOLS;
}
