import type { EventType, GuardDecision, Mode, Provenance } from '@agent-warden/contracts';
import { createRunStorage } from './context';
import type { ClientStats, FlushResult } from './flusher';
import type { GuardCheckResult, GuardInput } from './guard';
import { createLiveRuntime } from './live';
import { createNoopRuntime } from './noop';
import { resolveOptions, type WardenClientOptions } from './options';
import type { ProvenanceStats, TrustedOptions, UntrustedOrigin } from './provenance';
import { markTrusted, markUntrusted, provenanceOf } from './provenance-api';
import type { EndSessionOptions, EventDataOf, StartSessionOptions } from './recorder';
import { runInRun, type RunContext, type RunOptions } from './runs';
import { currentScope, type Runtime } from './runtime';
import {
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
import { errorFields } from './logger';
import { recordLlmCall, type LlmCallInput } from './llm-call';
import { recordScore, type ScoreInput } from './score';
import { toJsonObject } from './serialize';

/**
 * The Agent Warden client: registers the agent, records what it does as events (sent in batches
 * in the background), and asks the service before risky actions.
 *
 * ```ts
 * const warden = new WardenClient({ baseUrl, apiKey, agent: { key: 'billing-assistant' } });
 * await warden.withRun({ name: 'refund' }, () => warden.withTool({ name: 'stripe.refund' }, () => refund()));
 * ```
 *
 * Telemetry never throws into the agent: `track*`, `flush` and `shutdown` log transport errors
 * (and `flush` reports them). Only guard outcomes (`GuardrailBlockedError`,
 * `ApprovalDeniedError`, `ApprovalTimeoutError`, `GuardrailUnavailableError`) and the callbacks'
 * own errors reach the caller.
 */
export class WardenClient {
  private readonly rt: Runtime;

  /**
   * Resolves and validates the options (argument, then `WARDEN_*` environment variable, then
   * default) and, when enabled, starts registration (`POST /v1/agents/identify`, then the
   * capability declaration) and the periodic flush at once.
   * @throws ConfigurationError when an option has a bad value.
   */
  constructor(options: WardenClientOptions = {}) {
    const resolved = resolveOptions(options);
    const storage = createRunStorage();
    this.rt = resolved.enabled ? createLiveRuntime(resolved, storage) : createNoopRuntime(resolved, storage);
  }

  /** False for the no-op client (`enabled: false`). */
  get enabled(): boolean {
    return this.rt.options.enabled;
  }

  /** `monitor` or `enforce`. */
  get mode(): Mode {
    return this.rt.options.mode;
  }

  /** Server id of the agent; `undefined` until registered (`disabled-agent` when disabled). */
  get agentId(): string | undefined {
    return this.rt.identity.identity?.agentId;
  }

  /** Server id of the agent version; `undefined` until registered (`disabled-version` when disabled). */
  get agentVersionId(): string | undefined {
    return this.rt.identity.identity?.agentVersionId;
  }

  /** Id (UUIDv7) of the current session. */
  get sessionId(): string {
    return this.rt.recorder.sessionId;
  }

  /**
   * Resolves once the agent is registered and its capabilities declared (a failed declaration is
   * only logged). Rejects with the registration's error (`AuthenticationError`,
   * `ConnectionError`, ...) when it finally failed. Events made meanwhile are kept either way.
   */
  ready(): Promise<void> {
    return this.rt.identity.ready();
  }

  /**
   * Makes a session current and emits `agent.session.started` with `inputSummary` / `attributes`.
   * Optional: a session also starts by itself with its first event. Returns the session id.
   * `inputSummary` is a trusted source seen by every call of the session (docs/provenance.md).
   */
  startSession(options: StartSessionOptions = {}): string {
    return this.safe(
      'startSession',
      () => {
        const id = this.rt.recorder.startSession(options);
        this.rt.provenance.trusted({ sessionId: id }, options.inputSummary, { session: true });
        return id;
      },
      this.sessionId,
    );
  }

  /** Emits `agent.session.ended` (`status` default `completed`) and makes a new session current. */
  endSession(options: EndSessionOptions = {}): void {
    this.safe('endSession', () => this.rt.recorder.endSession(options), undefined);
  }

  /**
   * Runs `callback` as a run: `agent.run.started`, then `agent.run.completed` with status
   * `succeeded` / `failed` (error) / `cancelled`, `durationMs` and the run's `outputSummary`.
   * Awaits a flush before returning the callback's value or rethrowing its error. Inside the
   * callback, `client.withTool(...)` and `client.track*(...)` attach to the run.
   */
  withRun<T>(options: RunOptions, callback: (run: RunContext) => Promise<T> | T): Promise<T> {
    return runInRun(this.rt, currentScope(this.rt), options, callback);
  }

  /**
   * Runs a tool call: guard (unless `guard: false`), `agent.tool.started`, the callback, then
   * `agent.tool.completed` (JSON-safe result, durationMs) or `agent.tool.failed` (and rethrows).
   * Monitor mode always runs the callback. Enforce mode, before the callback runs, throws
   * `GuardrailBlockedError` on `block`, waits for a human on `require_approval` (then
   * `ApprovalDeniedError` / `ApprovalTimeoutError` unless approved). When the service cannot
   * answer: `failMode: 'open'` runs, `'closed'` throws `GuardrailUnavailableError`.
   */
  withTool<T>(options: ToolOptions, callback: (call: ToolCall) => Promise<T> | T): Promise<T> {
    return runTool(this.rt, currentScope(this.rt), options, callback);
  }

  /**
   * Records a tool call whose outcome is known without running it (replays): `agent.tool.started`
   * then `agent.tool.completed` (`result`) or `agent.tool.failed` (`error`). No guard. Returns the
   * toolCallId. Never throws.
   */
  recordTool(options: RecordToolOptions): string {
    return this.safe('recordTool', () => recordTool(this.rt, currentScope(this.rt), options), '');
  }

  /**
   * Guards a non-tool action like {@link WardenClient.withTool} (same errors, same modes) and runs
   * `callback` with the check's result, without tool events.
   */
  withGuard<T>(input: GuardInput, callback: (result: GuardCheckResult) => Promise<T> | T): Promise<T> {
    return runGuarded(this.rt, currentScope(this.rt), input, callback);
  }

  /**
   * Dry run: the full decision (`policyDecision`, `effectiveDecision`, `matchedGuardrails`,
   * `wouldBlock`, `wouldRequireApproval`) for `input` in the client's mode, without side effects
   * (no approval, no event). Throws the transport's typed errors (`ConnectionError`, ...).
   */
  guard(input: GuardInput): Promise<GuardDecision> {
    const scope = currentScope(this.rt);
    const provenance = this.rt.provenance.provenanceOf(scope, toJsonObject(input.arguments));
    return this.rt.guard.dryRun(input, { sessionId: scope.sessionId, runId: scope.runId }, provenance);
  }

  /**
   * Records `value` as trusted text (docs/provenance.md "Sources", kind `user`), like the user's
   * request: argument values found in it are not tainted. Strings are read as they are; objects
   * and arrays as their keys and scalar values. Kept in the current run (the session outside a
   * run, or with `{ session: true }`). Never throws; does nothing when provenance is off.
   */
  markTrusted(value: unknown, options?: TrustedOptions): void {
    markTrusted(this.rt, currentScope(this.rt), value, options);
  }

  /**
   * Records `value` as untrusted text (kind `tool`), like a tool result the client did not see:
   * `toolName` (default `unknown`) and `toolCallId` (a UUIDv7; another value is ignored) name it
   * in the provenance of the arguments found in it, and it is checked for instructions aimed at
   * the model. Never throws; does nothing when provenance is off.
   */
  markUntrusted(value: unknown, origin?: UntrustedOrigin): void {
    markUntrusted(this.rt, currentScope(this.rt), value, origin);
  }

  /**
   * The provenance (schema `Provenance`, docs/provenance.md) a guarded call with `args` would
   * send now in the current run or session: per argument leaf its origin, taint and sources, and
   * the session's instruction sightings. `undefined` when provenance is off or the client is
   * disabled. Never throws.
   */
  provenanceOf(args: Record<string, unknown>): Provenance | undefined {
    return provenanceOf(this.rt, currentScope(this.rt), args);
  }

  /** What provenance tracking holds now (runs, sessions, sources, characters, bytes). */
  provenanceStats(): ProvenanceStats {
    return this.rt.provenance.stats();
  }

  /** `agent.custom` `{ name, data }` in the current run / session. Returns the event id. Never throws. */
  track(name: string, data?: unknown): string {
    return trackCustom(this.rt, currentScope(this.rt), name, data);
  }

  /** `agent.action.performed`. Returns the event id. Never throws. */
  trackAction(action: ActionInput): string {
    return trackAction(this.rt, currentScope(this.rt), action);
  }

  /** `agent.message.logged` `{ role, content }`. Returns the event id. Never throws. */
  trackMessage(message: MessageInput): string {
    return trackMessage(this.rt, currentScope(this.rt), message);
  }

  /** Any contract event type with its typed `data`. Returns the event id. Never throws. */
  trackEvent<T extends EventType>(type: T, data: EventDataOf<T>, options?: TrackEventOptions): string {
    return trackEvent(this.rt, currentScope(this.rt), type, data, options);
  }

  /**
   * `agent.score.recorded`: the outcome of the current run, else of the session
   * (docs/architecture.md#scores), e.g. `score({ name: 'task_succeeded', value: true })`. `dataType`
   * follows the value (number, boolean, string = category); `source` defaults to `rule`. Returns
   * the event id, '' when the input cannot be a score (logged, nothing sent). Never throws.
   */
  score(input: ScoreInput): string {
    return recordScore(this.rt, currentScope(this.rt), input);
  }

  /**
   * `agent.llm.called`: one model invocation in the current run, else the session
   * (docs/architecture.md#llm-calls), e.g. `trackLlmCall({ model: 'gpt-4o-mini', provider: 'openai',
   * inputTokens: 812, outputTokens: 64, durationMs: 930 })`. Without `costUsd` the service prices
   * the call from its table. Returns the event id, '' when the input cannot be an LLM call (logged,
   * nothing sent). Never throws.
   */
  trackLlmCall(input: LlmCallInput): string {
    return recordLlmCall(this.rt, currentScope(this.rt), input);
  }

  /**
   * Sends what is queued, at most `maxBatchSize` events a request, and reports what this flush sent
   * and lost. Joins a flush in progress, then drains the rest. Never rejects.
   */
  flush(): Promise<FlushResult> {
    return this.rt.flush();
  }

  /** Stops the periodic flush, sends the rest (waiting for a flush in progress). Never rejects. */
  shutdown(): Promise<FlushResult> {
    return this.rt.shutdown();
  }

  /** Totals since construction: `{ queued, sent, dropped, failed, rejected, retries }`. */
  stats(): ClientStats {
    return this.rt.stats();
  }

  private safe<T>(what: string, f: () => T, fallback: T): T {
    try {
      return f();
    } catch (e) {
      this.rt.logger.error(`warden ${what} failed`, errorFields(e));
      return fallback;
    }
  }
}
