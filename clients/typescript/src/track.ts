import type { EventType, Resource, RiskLevel } from '@agent-warden/contracts';
import type { Scope } from './context';
import { errorFields } from './logger';
import type { EventDataOf } from './recorder';
import type { Runtime } from './runtime';
import { toJsonObject, toJsonSafe, truncate } from './serialize';

/** Longest message content kept, characters (the contract's limit); longer is cut and marked `truncated`. */
const MAX_MESSAGE_CHARS = 100_000;

/** An action the agent performed (not a tool call), for `trackAction`. */
export interface ActionInput {
  /** Kind of action, e.g. `email.send`. */
  actionType: string;
  /** Name of this action. */
  name: string;
  resource?: Resource;
  riskLevel?: RiskLevel;
  /** Free details (made JSON-safe). */
  details?: Record<string, unknown>;
}

/** A conversation message, for `trackMessage`. */
export interface MessageInput {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Text (≤ 100,000 characters; longer is cut and the event marked `truncated`). */
  content: string;
  /**
   * `role: 'tool'` only: the tool whose output this is, named in the provenance of arguments
   * found in it (docs/provenance.md). Not part of the event. Default `unknown`.
   */
  toolName?: string;
  /** `role: 'tool'` only: id (UUIDv7) of that tool call. Not part of the event. */
  toolCallId?: string;
}

/** Optional placement of a generic event. */
export interface TrackEventOptions {
  /** Run the event belongs to. Default: the current run, if any. */
  runId?: string;
  /** Parent event id. */
  parentId?: string;
}

/** `agent.custom` `{ name, data }`. Returns the event id. Never throws. */
export function trackCustom(rt: Runtime, scope: Scope, name: string, data?: unknown): string {
  return guarded(rt, 'agent.custom', () =>
    rt.recorder.emit(
      'agent.custom',
      { name: truncate(String(name || 'custom'), 200) ?? 'custom', data: toJsonSafe(data) },
      eventScope(scope),
    ),
  );
}

/** `agent.action.performed`. Returns the event id. Never throws. */
export function trackAction(rt: Runtime, scope: Scope, action: ActionInput): string {
  return guarded(rt, 'agent.action.performed', () =>
    rt.recorder.emit(
      'agent.action.performed',
      {
        actionType: truncate(String(action.actionType || 'unknown'), 200) ?? 'unknown',
        name: truncate(String(action.name || 'unnamed'), 200) ?? 'unnamed',
        resource: action.resource,
        riskLevel: action.riskLevel,
        details: toJsonObject(action.details),
      },
      eventScope(scope),
    ),
  );
}

/**
 * `agent.message.logged` (content cut to 100,000 characters, then `truncated: true`). A `user`
 * message is a trusted source, a `tool` message an untrusted one (docs/provenance.md). Returns the
 * event id. Never throws.
 */
export function trackMessage(rt: Runtime, scope: Scope, message: MessageInput): string {
  return guarded(rt, 'agent.message.logged', () => {
    const content =
      typeof message.content === 'string' ? message.content : JSON.stringify(toJsonSafe(message.content));
    if (message.role === 'user') rt.provenance.trusted(scope, content);
    else if (message.role === 'tool') {
      rt.provenance.untrusted(scope, content, { toolName: message.toolName, toolCallId: message.toolCallId });
    }
    const cut = content.length > MAX_MESSAGE_CHARS;
    return rt.recorder.emit(
      'agent.message.logged',
      {
        role: message.role,
        content: cut ? content.slice(0, MAX_MESSAGE_CHARS) : content,
        truncated: cut || undefined,
      },
      eventScope(scope),
    );
  });
}

/**
 * Any contract event type with its typed `data` (made JSON-safe). The service validates it; a
 * wrong payload is rejected there (counted in `flush().rejected`). Returns the event id. Never throws.
 */
export function trackEvent<T extends EventType>(
  rt: Runtime,
  scope: Scope,
  type: T,
  data: EventDataOf<T>,
  options: TrackEventOptions = {},
): string {
  return guarded(rt, type, () =>
    rt.recorder.emit(type, toJsonSafe(data) as EventDataOf<T>, {
      sessionId: scope.sessionId,
      runId: options.runId ?? scope.runId,
      parentId: options.parentId,
    }),
  );
}

function eventScope(scope: Scope) {
  return { sessionId: scope.sessionId, runId: scope.runId };
}

function guarded(rt: Runtime, type: string, f: () => string): string {
  try {
    return f();
  } catch (e) {
    rt.logger.error('warden could not track event', { type, ...errorFields(e) });
    return '';
  }
}
