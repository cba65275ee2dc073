import { LLM_OPERATIONS, nameBasedUuidV7, type AgentEventInput } from '@agent-warden/contracts';
import { attributesOf, clip, int, jsonOrText, num, str, strings, type Attributes } from './attributes';
import type { OtlpSpan } from './proto';

/**
 * Spans → events (docs/otel.md has the table). Pure: no I/O; the route resolves the agent and
 * assigns `sequence` afterwards (docs/decisions.md "OTLP spans get deterministic ids and
 * per-session sequence blocks").
 */

/** An event made from a span, before its `sequence` is assigned. */
export type SpanEvent = Omit<AgentEventInput, 'sequence'> & {
  /**
   * Order of the events of one span (started 0, input messages 1, LLM call 5, output messages 6,
   * completed 9); below 5 the event belongs to the span's start, from 5 to its end.
   */
  readonly order: number;
  /** The event's instant with the span's sub-millisecond precision, Unix ms (`time` is cut to ms). */
  readonly atMs: number;
};

/** What one span became: its events, or why it could not be mapped. */
export type SpanOutcome = { events: SpanEvent[] } | { rejected: string };

/** How a span is read (docs/otel.md "Which spans become what"). */
export type SpanRole = 'llm' | 'tool' | 'run' | 'other';

const LLM_OPS: ReadonlySet<string> = new Set(LLM_OPERATIONS);
const RUN_OPS = new Set(['invoke_agent', 'create_agent']);
const OI_LLM = new Set(['LLM', 'EMBEDDING']);
const OI_TOOL = new Set(['TOOL', 'RETRIEVER', 'RERANKER']);
const OI_RUN = new Set(['AGENT', 'CHAIN']);

/** The role of a span from `gen_ai.operation.name` (OTel GenAI) or `openinference.span.kind`. */
export function spanRole(a: Attributes): SpanRole {
  const op = str(a, 'gen_ai.operation.name');
  const oi = str(a, 'openinference.span.kind')?.toUpperCase();
  if ((op && LLM_OPS.has(op)) || (oi && OI_LLM.has(oi))) return 'llm';
  if (op === 'execute_tool' || (oi && OI_TOOL.has(oi))) return 'tool';
  if ((op && RUN_OPS.has(op)) || (oi && OI_RUN.has(oi))) return 'run';
  // A newer GenAI operation that names a model is a model call too (LlmCallEventData takes any operation).
  if (op && !oi && (str(a, 'gen_ai.request.model') || str(a, 'gen_ai.response.model'))) return 'llm';
  return 'other';
}

/** Deterministic event id of one part (`role`) of a span: the same span gives the same ids on every retry. */
export function spanEventId(traceId: string, spanId: string, role: string): string {
  return nameBasedUuidV7(`otlp:${traceId}:${spanId}:${role}`);
}

/** The run id of a run span (its `agent.run.*` events carry it; events of its descendants too). */
export function spanRunId(traceId: string, spanId: string): string {
  return nameBasedUuidV7(`otlp:${traceId}:${spanId}:run`);
}

/**
 * The session id of a span: from `gen_ai.conversation.id` or OpenInference `session.id`, else from
 * the trace id (docs/otel.md "Sessions, runs and ids").
 */
export function sessionIdOf(conversationId: string | undefined, traceId: string): string {
  return conversationId
    ? nameBasedUuidV7(`otlp:conversation:${conversationId}`)
    : nameBasedUuidV7(`otlp:trace:${traceId}`);
}

/** The conversation id a span names, if any. */
export function conversationIdOf(a: Attributes): string | undefined {
  return str(a, 'gen_ai.conversation.id') ?? str(a, 'session.id');
}

/** Unix ns (decimal string) → ms, or undefined for 0 / unreadable. */
function nsToMs(ns: string): number | undefined {
  try {
    const v = BigInt(ns);
    return v > 0n ? Number(v / 1_000_000n) + Number(v % 1_000_000n) / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

const iso = (ms: number) => new Date(Math.floor(ms)).toISOString();

const MESSAGE_ROLES: Record<string, 'system' | 'user' | 'assistant' | 'tool'> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
  tool: 'tool',
  function: 'tool',
};

interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** OpenInference `llm.<input|output>_messages.<i>.message.{role,content,contents.<j>.message_content.text}`. */
function openInferenceMessages(a: Attributes, dir: 'input' | 'output'): Message[] {
  const prefix = `llm.${dir}_messages.`;
  const byIndex = new Map<number, { role?: string; content?: string; parts: string[] }>();
  for (const key of Object.keys(a)) {
    if (!key.startsWith(prefix)) continue;
    const m = /^(\d+)\.message\.(role|content|contents\.\d+\.message_content\.text)$/.exec(
      key.slice(prefix.length),
    );
    if (!m) continue;
    const i = Number(m[1]);
    const entry = byIndex.get(i) ?? { parts: [] };
    byIndex.set(i, entry);
    const v = str(a, key);
    if (m[2] === 'role') entry.role = v;
    else if (m[2] === 'content') entry.content = v;
    else if (v) entry.parts.push(v);
  }
  return [...byIndex.entries()]
    .sort(([x], [y]) => x - y)
    .flatMap(([, e]) => {
      const role = e.role ? MESSAGE_ROLES[e.role.toLowerCase()] : undefined;
      const content = e.content ?? (e.parts.length ? e.parts.join('\n') : undefined);
      return role && content ? [{ role, content }] : [];
    });
}

/**
 * OTel GenAI `gen_ai.input.messages` / `gen_ai.output.messages` (JSON: `[{role, parts: [{type:
 * 'text', content}, …]}]`): text parts joined, other parts as JSON when there is no text.
 */
function genAiMessages(a: Attributes, key: string): Message[] {
  const raw = a[key];
  const list = typeof raw === 'string' ? jsonOrText(raw) : raw;
  if (!Array.isArray(list)) return [];
  return list.flatMap((m: unknown) => {
    if (!m || typeof m !== 'object') return [];
    const { role: r, parts, content: c } = m as { role?: unknown; parts?: unknown; content?: unknown };
    const role = typeof r === 'string' ? MESSAGE_ROLES[r.toLowerCase()] : undefined;
    if (!role) return [];
    let content: string | undefined = typeof c === 'string' ? c : undefined;
    if (content === undefined && Array.isArray(parts)) {
      const texts = parts.flatMap((p: unknown) =>
        p && typeof p === 'object' && typeof (p as { content?: unknown }).content === 'string'
          ? [(p as { content: string }).content]
          : [],
      );
      content = texts.length ? texts.join('\n') : JSON.stringify(parts);
    }
    return content ? [{ role, content }] : [];
  });
}

const MAX_CONTENT = 100_000;
const MAX_SUMMARY = 10_000;

/** An error of a span whose status is ERROR (code 2): the status message, else `error.type`, else "error". */
function spanError(span: OtlpSpan, a: Attributes): { message: string; type?: string } | undefined {
  if (span.status.code !== 2) return undefined;
  const type = clip(str(a, 'error.type') ?? str(a, 'exception.type'), 200);
  const message = clip(span.status.message || str(a, 'exception.message') || type || 'error', 10_000)!;
  return type ? { message, type } : { message };
}

/** `gen_ai.request.*` parameters other than the model, kept on the LLM call (`attributes`). */
function requestParameters(a: Attributes): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a))
    if (k.startsWith('gen_ai.request.') && k !== 'gen_ai.request.model') out[k] = v;
  if (typeof a['llm.invocation_parameters'] === 'string') {
    const p = jsonOrText(a['llm.invocation_parameters']);
    if (p && typeof p === 'object' && !Array.isArray(p)) out['llm.invocation_parameters'] = p;
  }
  return Object.keys(out).length ? out : undefined;
}

/** What every event of a span shares. */
export interface SpanContext {
  agentId: string;
  agentVersionId: string;
  sessionId: string;
  /** The nearest enclosing run among the spans of the request (a run span's own run for its events). */
  runId?: string;
}

/**
 * The events of one span (docs/otel.md): a model call → `agent.llm.called` (+ `agent.message.logged`
 * per input/output message), a tool → `agent.tool.started` + `.completed` / `.failed`, an agent or
 * chain → `agent.run.started` + `agent.run.completed`, anything else → one `agent.custom` named
 * `otel.span`. Rejected (with the reason) when its ids or start time are missing.
 * @param attributes the span's attributes as plain values, when the caller has read them already
 */
export function mapSpan(
  span: OtlpSpan,
  ctx: SpanContext,
  attributes: Attributes = attributesOf(span.attributes),
): SpanOutcome {
  if (span.traceId.length !== 32 || /^0+$/.test(span.traceId))
    return { rejected: 'span without a valid traceId' };
  if (span.spanId.length !== 16 || /^0+$/.test(span.spanId))
    return { rejected: 'span without a valid spanId' };
  const startMs = nsToMs(span.startTimeUnixNano);
  if (startMs === undefined) return { rejected: `span ${span.spanId} has no startTimeUnixNano` };
  const endMs = Math.max(nsToMs(span.endTimeUnixNano) ?? startMs, startMs);
  const durationMs = Math.round((endMs - startMs) * 1000) / 1000;
  const a = attributes;
  const role = spanRole(a);
  const { traceId, spanId } = span;
  const id = (part: string) => spanEventId(traceId, spanId, part);
  const base = {
    sessionId: ctx.sessionId,
    agentId: ctx.agentId,
    agentVersionId: ctx.agentVersionId,
    ...(ctx.runId ? { runId: ctx.runId } : {}),
  };
  const error = spanError(span, a);
  const events: SpanEvent[] = [];

  if (role === 'run') {
    const runId = spanRunId(traceId, spanId);
    const name = clip(str(a, 'gen_ai.agent.name') ?? span.name, 200);
    events.push({
      ...base,
      runId,
      id: id('run.started'),
      type: 'agent.run.started',
      time: iso(startMs),
      atMs: startMs,
      order: 0,
      data: {
        ...(name ? { name } : {}),
        ...(str(a, 'input.value') ? { inputSummary: clip(str(a, 'input.value'), MAX_SUMMARY) } : {}),
        attributes: { 'otel.span_name': span.name, 'otel.trace_id': traceId, 'otel.span_id': spanId },
      },
    });
    events.push({
      ...base,
      runId,
      id: id('run.completed'),
      parentId: id('run.started'),
      type: 'agent.run.completed',
      time: iso(endMs),
      atMs: endMs,
      order: 9,
      data: {
        status: error ? 'failed' : 'succeeded',
        durationMs,
        ...(str(a, 'output.value') ? { outputSummary: clip(str(a, 'output.value'), MAX_SUMMARY) } : {}),
        ...(error ? { error } : {}),
      },
    });
    return { events };
  }

  if (role === 'tool') {
    const callId = str(a, 'gen_ai.tool.call.id') ?? str(a, 'tool_call.id');
    const toolCallId = callId
      ? nameBasedUuidV7(`otlp:${traceId}:tool-call:${callId}`)
      : nameBasedUuidV7(`otlp:${traceId}:${spanId}:tool-call`);
    const toolName = clip(str(a, 'gen_ai.tool.name') ?? str(a, 'tool.name') ?? span.name, 200) || 'tool';
    // OpenInference's `tool.parameters` is the tool's JSON Schema (what it accepts), not this call's
    // arguments: those are `input.value` (the OpenAI Agents SDK instrumentation sets both).
    const argsRaw = jsonOrText(str(a, 'gen_ai.tool.call.arguments') ?? str(a, 'input.value'));
    const args =
      argsRaw === undefined
        ? undefined
        : argsRaw && typeof argsRaw === 'object' && !Array.isArray(argsRaw)
          ? (argsRaw as Record<string, unknown>)
          : { input: argsRaw };
    const result = jsonOrText(str(a, 'gen_ai.tool.call.result') ?? str(a, 'output.value'));
    events.push({
      ...base,
      id: id('tool.started'),
      type: 'agent.tool.started',
      time: iso(startMs),
      atMs: startMs,
      order: 0,
      data: { toolCallId, toolName, ...(args ? { arguments: args as never } : {}) },
    });
    events.push(
      error
        ? {
            ...base,
            id: id('tool.ended'),
            parentId: id('tool.started'),
            type: 'agent.tool.failed',
            time: iso(endMs),
            atMs: endMs,
            order: 9,
            data: { toolCallId, toolName, error, durationMs },
          }
        : {
            ...base,
            id: id('tool.ended'),
            parentId: id('tool.started'),
            type: 'agent.tool.completed',
            time: iso(endMs),
            atMs: endMs,
            order: 9,
            data: {
              toolCallId,
              toolName,
              durationMs,
              ...(result !== undefined ? { result: result as never } : {}),
            },
          },
    );
    return { events };
  }

  if (role === 'llm') {
    const oi = str(a, 'openinference.span.kind')?.toUpperCase();
    const operation = clip(
      str(a, 'gen_ai.operation.name') ?? (oi === 'EMBEDDING' ? 'embeddings' : 'chat'),
      100,
    )!;
    const model =
      str(a, 'gen_ai.request.model') ??
      str(a, 'llm.model_name') ??
      str(a, 'embedding.model_name') ??
      str(a, 'gen_ai.response.model') ??
      'unknown';
    const responseModel = str(a, 'gen_ai.response.model');
    const provider =
      str(a, 'gen_ai.provider.name') ??
      str(a, 'gen_ai.system') ??
      str(a, 'llm.provider') ??
      str(a, 'llm.system');
    const inputTokens = int(a, 'gen_ai.usage.input_tokens') ?? int(a, 'llm.token_count.prompt');
    const outputTokens = int(a, 'gen_ai.usage.output_tokens') ?? int(a, 'llm.token_count.completion');
    const cachedInputTokens =
      int(a, 'gen_ai.usage.cache_read.input_tokens') ?? int(a, 'llm.token_count.prompt_details.cache_read');
    const costUsd = num(a, 'llm.cost.total');
    const finishReasons = strings(a, 'gen_ai.response.finish_reasons');
    const parameters = requestParameters(a);
    const input = [...genAiMessages(a, 'gen_ai.input.messages'), ...openInferenceMessages(a, 'input')];
    const output = [...genAiMessages(a, 'gen_ai.output.messages'), ...openInferenceMessages(a, 'output')];
    input.forEach((m, i) =>
      events.push(messageEvent(base, id(`message.input.${i}`), startMs, 1 + i / 1000, m)),
    );
    events.push({
      ...base,
      id: id('llm'),
      type: 'agent.llm.called',
      time: iso(endMs),
      atMs: endMs,
      order: 5,
      data: {
        llmCallId: id('llm'),
        operation,
        model: clip(model, 200)!,
        ...(provider ? { provider: clip(provider, 100) } : {}),
        ...(responseModel ? { responseModel: clip(responseModel, 200) } : {}),
        ...(inputTokens !== undefined ? { inputTokens } : {}),
        ...(outputTokens !== undefined ? { outputTokens } : {}),
        ...(cachedInputTokens !== undefined ? { cachedInputTokens } : {}),
        durationMs,
        ...(costUsd !== undefined && costUsd >= 0 ? { costUsd } : {}),
        ...(finishReasons?.length
          ? { finishReasons: finishReasons.slice(0, 20).map((f) => clip(f, 100)!) }
          : {}),
        ...(error ? { error } : {}),
        ...(parameters ? { attributes: parameters as never } : {}),
      },
    });
    output.forEach((m, i) =>
      events.push(messageEvent(base, id(`message.output.${i}`), endMs, 6 + i / 1000, m)),
    );
    return { events };
  }

  events.push({
    ...base,
    id: id('custom'),
    type: 'agent.custom',
    time: iso(startMs),
    atMs: startMs,
    order: 0,
    data: {
      name: 'otel.span',
      data: {
        name: span.name,
        traceId,
        spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        kind: span.kind,
        durationMs,
        status: span.status.code === 2 ? 'error' : span.status.code === 1 ? 'ok' : 'unset',
        ...(error ? { error } : {}),
        attributes: a as never,
      },
    },
  });
  return { events };
}

function messageEvent(
  base: Pick<SpanEvent, 'sessionId' | 'agentId' | 'agentVersionId' | 'runId'>,
  id: string,
  atMs: number,
  order: number,
  m: Message,
): SpanEvent {
  const truncated = m.content.length > MAX_CONTENT;
  return {
    ...base,
    id,
    type: 'agent.message.logged',
    time: iso(atMs),
    atMs,
    order,
    data: { role: m.role, content: clip(m.content, MAX_CONTENT)!, ...(truncated ? { truncated: true } : {}) },
  };
}
