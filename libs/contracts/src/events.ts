import { z } from 'zod';
import {
  ClientId,
  Decision,
  JsonObject,
  JsonValue,
  Mode,
  RiskLevel,
  Timestamp,
  Uuid,
  BoundedTimestamp,
} from './common';
import { INT4_MAX } from './json-safety';
import { LlmCallEventData } from './llm';
import { Provenance } from './provenance';
import { ScoreEventData } from './scores';

/** A guardrail that matched an evaluation (docs/architecture.md#guard-decision). */
export const MatchedGuardrail = z
  .object({
    policyId: z.string(),
    name: z.string(),
    version: z.number().int().min(1),
    decision: Decision,
    reason: z.string(),
  })
  .meta({ id: 'MatchedGuardrail' });
export type MatchedGuardrail = z.infer<typeof MatchedGuardrail>;

/** What a tool call or action touches. */
export const Resource = z
  .object({
    type: z.string().max(200).optional(),
    id: z.string().max(500).optional(),
    environment: z.string().max(100).optional(),
  })
  .meta({ id: 'Resource' });
export type Resource = z.infer<typeof Resource>;

const ToolCallRef = {
  /** Client-made id of the tool call, shared by its started/completed/failed events. */
  toolCallId: ClientId,
  toolName: z.string().min(1).max(200),
};

const ErrorInfo = z.object({
  message: z.string().max(10_000),
  type: z.string().max(200).optional(),
});

/** Payload schema of every event type (docs/architecture.md#event-types: `agent.<noun>.<verb-past>`). */
export const EventData = {
  'agent.session.started': z.object({
    inputSummary: z.string().max(10_000).optional(),
    attributes: JsonObject.optional(),
  }),
  'agent.session.ended': z.object({
    status: z.enum(['completed', 'failed', 'cancelled']).default('completed'),
    outputSummary: z.string().max(10_000).optional(),
  }),
  'agent.run.started': z.object({
    name: z.string().max(200).optional(),
    inputSummary: z.string().max(10_000).optional(),
    attributes: JsonObject.optional(),
  }),
  'agent.run.completed': z.object({
    status: z.enum(['succeeded', 'failed', 'cancelled']),
    outputSummary: z.string().max(10_000).optional(),
    error: ErrorInfo.optional(),
    durationMs: z.number().nonnegative().optional(),
  }),
  'agent.tool.started': z.object({
    ...ToolCallRef,
    arguments: JsonObject.optional(),
    actionType: z.string().max(200).optional(),
    riskLevel: RiskLevel.optional(),
    resource: Resource.optional(),
  }),
  'agent.tool.completed': z.object({
    ...ToolCallRef,
    result: JsonValue.optional(),
    durationMs: z.number().nonnegative(),
  }),
  'agent.tool.failed': z.object({
    ...ToolCallRef,
    error: ErrorInfo,
    durationMs: z.number().nonnegative(),
  }),
  'agent.action.performed': z.object({
    actionType: z.string().min(1).max(200),
    name: z.string().min(1).max(200),
    resource: Resource.optional(),
    riskLevel: RiskLevel.optional(),
    details: JsonObject.optional(),
  }),
  'agent.guardrail.evaluated': z.object({
    /** Absent only when the service could not be reached (`outcome` `failed_open` / `failed_closed`). */
    evaluationId: z.string().optional(),
    toolCallId: ClientId.optional(),
    toolName: z.string().max(200).optional(),
    mode: Mode,
    policyDecision: Decision,
    effectiveDecision: Decision,
    matchedGuardrails: z.array(MatchedGuardrail),
    wouldBlock: z.boolean(),
    wouldRequireApproval: z.boolean(),
    approvalId: z.string().optional(),
    /** How the client acted: ran the callback, stopped it, or failed open/closed without an answer. */
    outcome: z.enum(['ran', 'blocked', 'awaiting_approval', 'failed_open', 'failed_closed']).optional(),
    /** The provenance the client sent with the evaluation (docs/provenance.md), for the session replay. */
    provenance: Provenance.optional(),
  }),
  'agent.approval.requested': z.object({
    approvalId: z.string(),
    evaluationId: z.string(),
    toolCallId: ClientId.optional(),
    expiresAt: Timestamp,
  }),
  'agent.approval.resolved': z.object({
    approvalId: z.string(),
    status: z.enum(['approved', 'denied', 'expired', 'cancelled']),
    decidedBy: z.string().max(200).optional(),
    comment: z.string().max(2000).optional(),
    waitedMs: z.number().nonnegative().optional(),
  }),
  'agent.message.logged': z.object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string().max(100_000),
    truncated: z.boolean().optional(),
  }),
  /** A score on the event's run (with `runId`) or session (docs/architecture.md#scores). */
  'agent.score.recorded': ScoreEventData,
  /** One model invocation with its model, tokens, latency and cost (docs/architecture.md#llm-calls). */
  'agent.llm.called': LlmCallEventData,
  'agent.custom': z.object({
    name: z.string().min(1).max(200),
    data: JsonValue.optional(),
  }),
} as const;

/** Every event type, in the order of docs/architecture.md#event-types. */
export type EventType = keyof typeof EventData;
export const EVENT_TYPES = Object.keys(EventData) as EventType[];
export const EventTypeSchema = z.enum(EVENT_TYPES as [EventType, ...EventType[]]);

/** Event types that must carry a `runId`. */
export const RUN_SCOPED_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'agent.run.started',
  'agent.run.completed',
]);

/**
 * Fields shared by every event (docs/architecture.md#event-envelope):
 * `{ id, type, time, sessionId, runId?, parentId?, agentId, agentVersionId, sequence, data }`.
 * `sequence` is a per-session counter set by the client (starting at 1) so gaps show lost events.
 */
const envelopeFields = {
  id: ClientId,
  time: BoundedTimestamp,
  sessionId: ClientId,
  runId: ClientId.optional(),
  parentId: ClientId.optional(),
  agentId: Uuid,
  agentVersionId: Uuid,
  /** Stored in an int4 column: 1 … 2,147,483,647. */
  sequence: z.number().int().min(1).max(INT4_MAX),
};

function eventSchema<T extends EventType>(type: T) {
  return z.object({ ...envelopeFields, type: z.literal(type), data: EventData[type] });
}

/** Discriminated union over `type`: one schema per event type. */
export const AgentEvent = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((t) => eventSchema(t)) as unknown as [
      ReturnType<typeof eventSchema<EventType>>,
      ...ReturnType<typeof eventSchema<EventType>>[],
    ],
  )
  .superRefine((e, ctx) => {
    if (RUN_SCOPED_TYPES.has(e.type) && !e.runId) {
      ctx.addIssue({ code: 'custom', path: ['runId'], message: `runId is required for ${e.type}` });
    }
  })
  .meta({ id: 'AgentEvent' });

/** A validated event; `data` is typed by `type`. */
export type AgentEvent = {
  [T in EventType]: Omit<z.infer<ReturnType<typeof eventSchema<T>>>, 'data'> & {
    type: T;
    data: z.infer<(typeof EventData)[T]>;
  };
}[EventType];

/** Input form of an event (defaults not yet applied), as a client builds it. */
export type AgentEventInput = {
  [T in EventType]: Omit<z.input<ReturnType<typeof eventSchema<T>>>, 'data'> & {
    type: T;
    data: z.input<(typeof EventData)[T]>;
  };
}[EventType];
