import { isUuidV7, type EventType, type Provenance } from '@agent-warden/contracts';
import type { Scope } from './context';
import type { GuardCheckResult, GuardInput } from './guard';
import { markTrusted, markUntrusted, provenanceOf } from './provenance-api';
import type { TrustedOptions, UntrustedOrigin } from './provenance';
import type { EventDataOf } from './recorder';
import type { Runtime } from './runtime';
import { recordLlmCall, type LlmCallInput } from './llm-call';
import { recordScore, type ScoreInput } from './score';
import { toJsonObject, truncate } from './serialize';
import {
  errorInfo,
  recordTool,
  runGuarded,
  runTool,
  type RecordToolOptions,
  type ToolCall,
  type ToolOptions,
} from './tools';
import {
  trackAction,
  trackCustom,
  trackEvent,
  trackMessage,
  type ActionInput,
  type MessageInput,
  type TrackEventOptions,
} from './track';

/** Options of `withRun`. */
export interface RunOptions {
  /** Name of the run, e.g. `answer-ticket`. */
  name?: string;
  /** What the run was asked (≤ 10,000 characters, longer is cut). */
  inputSummary?: string;
  /** Free attributes (made JSON-safe). */
  attributes?: Record<string, unknown>;
  /** Id (UUIDv7) of the run. Default: a new one. */
  runId?: string;
}

/**
 * The run a `withRun` callback runs in. Its methods attach to this run even when called outside
 * the callback's async context; `client.withTool(...)` inside the callback attaches too.
 */
export class RunContext {
  /** Id of the run. */
  readonly runId: string;
  /** Id of the run's session. */
  readonly sessionId: string;
  /** Name of the run. */
  readonly name?: string;
  /** Summary of the run's output, sent with `agent.run.completed` (≤ 10,000 characters). */
  outputSummary?: string;
  private cancelled = false;

  /** @internal made by `withRun`. */
  constructor(
    private readonly rt: Runtime,
    private readonly scope: Scope,
    name?: string,
  ) {
    this.runId = scope.runId as string;
    this.sessionId = scope.sessionId;
    this.name = name;
  }

  /** Marks the run `cancelled`: it completes with that status when the callback returns. */
  cancel(): void {
    this.cancelled = true;
  }

  /** True once {@link RunContext.cancel} was called. */
  get isCancelled(): boolean {
    return this.cancelled;
  }

  /** `withTool` in this run; see `WardenClient.withTool`. */
  withTool<T>(options: ToolOptions, callback: (call: ToolCall) => Promise<T> | T): Promise<T> {
    return this.rt.storage.run(this.scope, () => runTool(this.rt, this.scope, options, callback));
  }

  /** `withGuard` in this run; see `WardenClient.withGuard`. */
  withGuard<T>(input: GuardInput, callback: (result: GuardCheckResult) => Promise<T> | T): Promise<T> {
    return this.rt.storage.run(this.scope, () => runGuarded(this.rt, this.scope, input, callback));
  }

  /** `recordTool` in this run; see `WardenClient.recordTool`. */
  recordTool(options: RecordToolOptions): string {
    return recordTool(this.rt, this.scope, options);
  }

  /** `track` in this run (`agent.custom`). */
  track(name: string, data?: unknown): string {
    return trackCustom(this.rt, this.scope, name, data);
  }

  /** `trackAction` in this run (`agent.action.performed`). */
  trackAction(action: ActionInput): string {
    return trackAction(this.rt, this.scope, action);
  }

  /** `trackMessage` in this run (`agent.message.logged`). */
  trackMessage(message: MessageInput): string {
    return trackMessage(this.rt, this.scope, message);
  }

  /** `trackEvent` in this run. */
  trackEvent<T extends EventType>(type: T, data: EventDataOf<T>, options?: TrackEventOptions): string {
    return trackEvent(this.rt, this.scope, type, data, options);
  }

  /** `score` on this run (`agent.score.recorded`); see `WardenClient.score`. */
  score(input: ScoreInput): string {
    return recordScore(this.rt, this.scope, input);
  }

  /** `trackLlmCall` in this run (`agent.llm.called`); see `WardenClient.trackLlmCall`. */
  trackLlmCall(input: LlmCallInput): string {
    return recordLlmCall(this.rt, this.scope, input);
  }

  /** `markTrusted` in this run; see `WardenClient.markTrusted`. */
  markTrusted(value: unknown, options?: TrustedOptions): void {
    markTrusted(this.rt, this.scope, value, options);
  }

  /** `markUntrusted` in this run; see `WardenClient.markUntrusted`. */
  markUntrusted(value: unknown, origin?: UntrustedOrigin): void {
    markUntrusted(this.rt, this.scope, value, origin);
  }

  /** `provenanceOf` in this run; see `WardenClient.provenanceOf`. */
  provenanceOf(args: Record<string, unknown>): Provenance | undefined {
    return provenanceOf(this.rt, this.scope, args);
  }
}

/**
 * Emits `agent.run.started`, runs `callback` in the run's async context, emits
 * `agent.run.completed` (`succeeded`; `failed` with the error; `cancelled` after `run.cancel()` or
 * an `AbortError`; with `durationMs` and `outputSummary`), then awaits a flush before returning the
 * callback's value or rethrowing its error. The run's `inputSummary` is a trusted source of the run
 * (docs/provenance.md); the run's sources are dropped when it returns. A run inside a run is its child (`parentId` = the
 * parent's `agent.run.started` id) in the same session.
 */
export async function runInRun<T>(
  rt: Runtime,
  parent: Scope,
  options: RunOptions,
  callback: (run: RunContext) => Promise<T> | T,
): Promise<T> {
  const runId = validRunId(rt, options.runId);
  const sessionId = parent.sessionId;
  const name = truncate(options.name, 200);
  const startedId = rt.recorder.emit(
    'agent.run.started',
    {
      name,
      inputSummary: truncate(options.inputSummary, 10_000),
      attributes: toJsonObject(options.attributes),
    },
    { sessionId, runId, parentId: parent.runId ? parent.runStartedEventId : undefined },
  );
  const scope: Scope = { sessionId, runId, runStartedEventId: startedId };
  rt.provenance.openRun(scope, parent.runId);
  rt.provenance.trusted(scope, options.inputSummary);
  const run = new RunContext(rt, scope, name);
  const elapsed = rt.recorder.stopwatch();
  let status: 'succeeded' | 'failed' | 'cancelled' = 'succeeded';
  let error: { message: string; type?: string } | undefined;
  try {
    const result = await rt.storage.run(scope, () => callback(run));
    if (run.isCancelled) status = 'cancelled';
    return result;
  } catch (e) {
    status =
      run.isCancelled || (e as { name?: unknown } | null)?.name === 'AbortError' ? 'cancelled' : 'failed';
    error = errorInfo(e);
    throw e;
  } finally {
    rt.recorder.emit(
      'agent.run.completed',
      { status, outputSummary: truncate(run.outputSummary, 10_000), error, durationMs: elapsed() },
      { sessionId, runId, parentId: startedId },
    );
    rt.provenance.closeRun(runId);
    await rt.flush();
  }
}

function validRunId(rt: Runtime, id: string | undefined): string {
  if (id === undefined) return rt.recorder.newId();
  if (isUuidV7(id)) return id;
  rt.logger.warn('warden runId is not a UUIDv7, using a new one', { runId: id });
  return rt.recorder.newId();
}
