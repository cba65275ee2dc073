import {
  isUuidV7,
  newId as defaultNewId,
  type AgentEventInput,
  type EventType,
} from '@agent-warden/contracts';
import { errorFields, type Logger } from './logger';
import { truncate } from './serialize';

/** Ended sessions whose sequence counters are remembered. */
const MAX_ENDED_SESSIONS = 1000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * An event as the client builds it: the full envelope except `agentId` / `agentVersionId`, which
 * are filled in when it is sent (registration may not have finished when it is made).
 */
export type PendingEvent = DistributiveOmit<AgentEventInput, 'agentId' | 'agentVersionId'>;

/** The `data` payload of events of type `T`, as the contract types it. */
export type EventDataOf<T extends EventType> = Extract<AgentEventInput, { type: T }>['data'];

/** An event in the queue, with its approximate JSON size (bytes) for batching by size. */
export interface QueuedEvent {
  event: PendingEvent;
  bytes: number;
}

/** Where an event belongs: its session (default: the current one), run and parent event. */
export interface EventScope {
  sessionId?: string;
  runId?: string;
  parentId?: string;
}

/** Options of `startSession`. */
export interface StartSessionOptions {
  /** Id (UUIDv7) of the new session. Default: the current id if its session has not started, else a new one. */
  sessionId?: string;
  /** What the session is about (≤ 10,000 characters, longer is cut). */
  inputSummary?: string;
  /** Free attributes. */
  attributes?: Record<string, unknown>;
}

/** Options of `endSession`. */
export interface EndSessionOptions {
  /** Default `completed`. */
  status?: 'completed' | 'failed' | 'cancelled';
  /** What came out of it (≤ 10,000 characters, longer is cut). */
  outputSummary?: string;
}

/**
 * Makes events: assigns the id (UUIDv7, once, so retries reuse it), the time, and the per-session
 * `sequence` (1, 2, 3, ... for every event made in a session, sent or not, so the service sees
 * gaps), starts a session lazily with `agent.session.started` before its first other event, and
 * hands each event to the sink. Never throws.
 */
export class EventRecorder {
  private current: string;
  private readonly sequences = new Map<string, number>();
  /** Ended sessions, oldest first; their counters are kept (late events continue the sequence) up to a bound. */
  private readonly ended: string[] = [];

  constructor(
    private readonly sink: (item: QueuedEvent) => void,
    private readonly logger: Logger,
    sessionId?: string,
    /** Makes event and session ids (the client's `idFactory`). */
    readonly newId: () => string = defaultNewId,
    /** The client's `clock` (epoch ms): event times, and durations when set. Default: wall clock for times. */
    private readonly clock?: () => number,
  ) {
    this.current = sessionId ?? this.newId();
  }

  /** Id of the current session (events outside a run go there). */
  get sessionId(): string {
    return this.current;
  }

  /**
   * Makes the session current and emits `agent.session.started` for it unless it has started.
   * Returns its id. An invalid `sessionId` is logged and replaced by a new one.
   */
  startSession(options: StartSessionOptions = {}): string {
    let id = options.sessionId;
    if (id !== undefined && !isUuidV7(id)) {
      this.logger.warn('warden sessionId is not a UUIDv7, using a new one', { sessionId: id });
      id = undefined;
    }
    this.current = id ?? (this.sequences.has(this.current) ? this.newId() : this.current);
    if (this.sequences.has(this.current)) {
      this.logger.debug('warden session already started', { sessionId: this.current });
      return this.current;
    }
    this.emit(
      'agent.session.started',
      { inputSummary: truncate(options.inputSummary, 10_000), attributes: options.attributes },
      { sessionId: this.current },
    );
    return this.current;
  }

  /**
   * Emits `agent.session.ended` for the current session (when it has started) and makes a new
   * session current. Late events of the ended session (e.g. from a run still going) continue its
   * sequence; counters of the {@link MAX_ENDED_SESSIONS} most recently ended sessions are kept.
   */
  endSession(options: EndSessionOptions = {}): void {
    const id = this.current;
    if (this.sequences.has(id)) {
      this.emit(
        'agent.session.ended',
        { status: options.status ?? 'completed', outputSummary: truncate(options.outputSummary, 10_000) },
        { sessionId: id },
      );
      this.ended.push(id);
      if (this.ended.length > MAX_ENDED_SESSIONS) this.sequences.delete(this.ended.shift() as string);
    }
    this.current = this.newId();
  }

  /**
   * A stopwatch started now: returns the ms elapsed since, rounded to 0.1 ms. Measured on the
   * client's `clock` when one is set (a replay's clock advances as the logged run did), else on
   * the monotonic `performance.now`.
   */
  stopwatch(): () => number {
    const read = this.clock ?? (() => performance.now());
    const t0 = read();
    return () => Math.max(0, Math.round((read() - t0) * 10) / 10) || 0;
  }

  /** ISO time of an event made now: the `clock`'s reading when set (a non-finite one falls back to the wall clock). */
  private eventTime(): string {
    const ms = this.clock?.();
    return new Date(ms !== undefined && Number.isFinite(ms) ? ms : Date.now()).toISOString();
  }

  /**
   * Makes an event of `type` with `data` in `scope` and hands it to the sink. Emits the session's
   * `agent.session.started` first when the session has not started. Returns the event id (also
   * when the sink drops it). Never throws: a failure is logged and an id is still returned.
   */
  emit<T extends EventType>(type: T, data: EventDataOf<T>, scope: EventScope = {}): string {
    const id = this.newId();
    try {
      const sessionId = scope.sessionId ?? this.current;
      if (type !== 'agent.session.started' && !this.sequences.has(sessionId)) {
        this.emit('agent.session.started', {}, { sessionId });
      }
      const sequence = (this.sequences.get(sessionId) ?? 0) + 1;
      this.sequences.set(sessionId, sequence);
      const event = {
        id,
        type,
        time: this.eventTime(),
        sessionId,
        ...(scope.runId ? { runId: scope.runId } : {}),
        ...(scope.parentId ? { parentId: scope.parentId } : {}),
        sequence,
        data: dropUndefined(data),
      } as PendingEvent;
      this.sink({ event, bytes: JSON.stringify(event).length + 128 });
    } catch (e) {
      this.logger.error('warden could not record event', { type, ...errorFields(e) });
    }
    return id;
  }
}

function dropUndefined<T>(data: T): T {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (v !== undefined) out[k] = v;
  return out as T;
}
