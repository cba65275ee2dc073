import {
  isUuidV7,
  type Approval,
  type GuardDecision,
  type Resource,
  type RiskLevel,
} from '@agent-warden/contracts';
import type { Scope } from './context';
import { isErrorLike } from './errors';
import type { GuardCheckResult, GuardInput } from './guard';
import type { Runtime } from './runtime';
import { toJsonObject, toJsonSafe, truncate } from './serialize';

/** A tool call to guard and record. */
export interface ToolOptions {
  /** Tool name (1–200 characters), e.g. `sql.query`. */
  name: string;
  /** The call's arguments (made JSON-safe; policies can match paths into them). */
  arguments?: Record<string, unknown>;
  /** Kind of action, e.g. `db.write`, `payment.refund`. */
  actionType?: string;
  /** `low` < `medium` < `high` < `critical`. */
  riskLevel?: RiskLevel;
  /** What the call touches: `{ type?, id?, environment? }`. */
  resource?: Resource;
  /** Evaluate guardrails before running. Default `true`. */
  guard?: boolean;
  /** Id (UUIDv7) of the call. Default: a new one. */
  toolCallId?: string;
}

/** What a `withTool` callback receives. */
export interface ToolCall {
  toolCallId: string;
  name: string;
  /** The guard decision (absent with `guard: false`, or when the guard failed open). */
  decision?: GuardDecision;
  /** The granted approval, when one was needed. */
  approval?: Approval;
}

/** A tool call whose outcome is already known (replays, calls made elsewhere). */
export interface RecordToolOptions extends Omit<ToolOptions, 'guard'> {
  /** The call's result (made JSON-safe). */
  result?: unknown;
  /** Set when the call failed: an Error, a message, or `{ message, type? }`. */
  error?: Error | string | { message: string; type?: string };
  /** How long it took, ms. Default 0. */
  durationMs?: number;
}

/**
 * Guards (unless `guard: false`; the evaluation carries the arguments' provenance,
 * docs/provenance.md), then runs `callback` between `agent.tool.started` and
 * `agent.tool.completed` (result, durationMs) or `agent.tool.failed` (error, durationMs; the error
 * is rethrown). The result (or the error's message) is recorded as an untrusted source of this
 * tool call. Guard errors (`GuardrailBlockedError`, `ApprovalDeniedError`,
 * `ApprovalTimeoutError`, `GuardrailUnavailableError`) are thrown before the callback runs.
 */
export async function runTool<T>(
  rt: Runtime,
  scope: Scope,
  options: ToolOptions,
  callback: (call: ToolCall) => Promise<T> | T,
): Promise<T> {
  const name = toolName(options.name);
  const toolCallId = callId(rt, options.toolCallId);
  const args = toJsonObject(options.arguments);
  const eventScope = { sessionId: scope.sessionId, runId: scope.runId };
  const call: ToolCall = { toolCallId, name };
  if (options.guard !== false) {
    const input: GuardInput = {
      tool: { name },
      action: { type: options.actionType, name },
      resource: options.resource,
      riskLevel: options.riskLevel,
      arguments: args,
    };
    const provenance = rt.provenance.provenanceOf(scope, args);
    const checked = await rt.guard.check({
      input,
      what: `tool ${name}`,
      scope: eventScope,
      toolCallId,
      provenance,
    });
    call.decision = checked.decision;
    call.approval = checked.approval;
  }
  const startedId = rt.recorder.emit(
    'agent.tool.started',
    {
      toolCallId,
      toolName: name,
      arguments: args,
      actionType: options.actionType,
      riskLevel: options.riskLevel,
      resource: options.resource,
    },
    eventScope,
  );
  const elapsed = rt.recorder.stopwatch();
  const after = { ...eventScope, parentId: startedId };
  let result: T;
  try {
    result = await callback(call);
  } catch (e) {
    const durationMs = elapsed();
    const error = errorInfo(e);
    rt.recorder.emit('agent.tool.failed', { toolCallId, toolName: name, error, durationMs }, after);
    rt.provenance.untrusted(scope, error.message, { toolName: name, toolCallId });
    throw e;
  }
  const durationMs = elapsed();
  rt.provenance.untrusted(scope, result, { toolName: name, toolCallId });
  rt.recorder.emit(
    'agent.tool.completed',
    { toolCallId, toolName: name, result: toJsonSafe(result), durationMs },
    after,
  );
  return result;
}

/**
 * Records a finished tool call without running or guarding it: `started`, then `completed` or
 * `failed`; its result (or error message) becomes an untrusted source. Returns the toolCallId.
 */
export function recordTool(rt: Runtime, scope: Scope, options: RecordToolOptions): string {
  const name = toolName(options.name);
  const toolCallId = callId(rt, options.toolCallId);
  const eventScope = { sessionId: scope.sessionId, runId: scope.runId };
  const startedId = rt.recorder.emit(
    'agent.tool.started',
    {
      toolCallId,
      toolName: name,
      arguments: toJsonObject(options.arguments),
      actionType: options.actionType,
      riskLevel: options.riskLevel,
      resource: options.resource,
    },
    eventScope,
  );
  const durationMs = Math.max(0, Number(options.durationMs) || 0);
  const after = { ...eventScope, parentId: startedId };
  if (options.error !== undefined) {
    const error = errorInfo(options.error);
    rt.recorder.emit('agent.tool.failed', { toolCallId, toolName: name, error, durationMs }, after);
    rt.provenance.untrusted(scope, error.message, { toolName: name, toolCallId });
  } else {
    rt.provenance.untrusted(scope, options.result, { toolName: name, toolCallId });
    rt.recorder.emit(
      'agent.tool.completed',
      { toolCallId, toolName: name, result: toJsonSafe(options.result), durationMs },
      after,
    );
  }
  return toolCallId;
}

/**
 * Guards a non-tool action (no tool events), then runs `callback` with the check's result. Throws
 * the guard errors of {@link runTool} before the callback runs, and the callback's own errors.
 */
export async function runGuarded<T>(
  rt: Runtime,
  scope: Scope,
  input: GuardInput,
  callback: (result: GuardCheckResult) => Promise<T> | T,
): Promise<T> {
  const safeInput: GuardInput = { ...input, arguments: toJsonObject(input.arguments) };
  const label = input.tool?.name
    ? `tool ${input.tool.name}`
    : `action ${input.action?.name ?? input.action?.type ?? 'unnamed'}`;
  const checked = await rt.guard.check({
    input: safeInput,
    what: label,
    scope: { sessionId: scope.sessionId, runId: scope.runId },
    provenance: rt.provenance.provenanceOf(scope, safeInput.arguments),
  });
  return callback(checked);
}

/** `{ message, type }` of anything thrown (message ≤ 10,000 characters; `type` = the error's name). */
export function errorInfo(e: unknown): { message: string; type?: string } {
  if (typeof e === 'string') return { message: truncate(e, 10_000) ?? '' };
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    const { message } = e as { message: string };
    const type = isErrorLike(e) ? e.name : (e as { type?: unknown }).type;
    return {
      message: truncate(message, 10_000) ?? '',
      type: typeof type === 'string' ? truncate(type, 200) : undefined,
    };
  }
  return { message: truncate(JSON.stringify(toJsonSafe(e)) ?? String(e), 10_000) ?? '' };
}

function toolName(name: unknown): string {
  const s = typeof name === 'string' && name.length > 0 ? name : 'unnamed';
  return truncate(s, 200) ?? 'unnamed';
}

function callId(rt: Runtime, id: string | undefined): string {
  if (id === undefined) return rt.recorder.newId();
  if (isUuidV7(id)) return id;
  rt.logger.warn('warden toolCallId is not a UUIDv7, using a new one', { toolCallId: id });
  return rt.recorder.newId();
}
