import { z } from 'zod';
import { Decision, JsonObject, Mode, queryInt, Timestamp } from './common';
import { ApprovalTransitionView } from './approvals-inbox';
import { MatchedGuardrail } from './events';
import { Capability } from './identify';
import { Provenance } from './provenance';
import { LlmTotalsView } from './llm-api';
import { ScoreView } from './scores';

/** Cursor page: `items` newest first; pass `nextCursor` back as `cursor` for the next page (null at the end). */
export function Page<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() }).meta({ id });
}

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional(),
});

export const AgentVersionView = z
  .object({
    id: z.string(),
    version: z.string(),
    metadata: JsonObject,
    capabilities: z.array(Capability),
    createdAt: Timestamp,
  })
  .meta({ id: 'AgentVersion' });

export const AgentView = z
  .object({
    id: z.string(),
    key: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    createdAt: Timestamp,
    lastSeenAt: Timestamp.nullable(),
    versions: z.array(AgentVersionView),
  })
  .meta({ id: 'Agent' });

export const SessionView = z
  .object({
    id: z.string(),
    agentId: z.string(),
    agentVersionId: z.string(),
    status: z.string(),
    inputSummary: z.string().nullable(),
    startedAt: Timestamp,
    endedAt: Timestamp.nullable(),
    lastEventAt: Timestamp,
    eventCount: z.number().int(),
    maxSequence: z.number().int(),
    /** Sequence numbers missing between 1 and `maxSequence` (lost events). */
    missingSequences: z.number().int(),
  })
  .meta({ id: 'Session' });

export const RunView = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    name: z.string().nullable(),
    status: z.string(),
    inputSummary: z.string().nullable(),
    outputSummary: z.string().nullable(),
    startedAt: Timestamp.nullable(),
    endedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Run' });

export const EventView = z
  .object({
    id: z.string(),
    type: z.string(),
    time: Timestamp,
    sessionId: z.string(),
    runId: z.string().nullable(),
    parentId: z.string().nullable(),
    agentId: z.string(),
    agentVersionId: z.string(),
    sequence: z.number().int(),
    data: z.unknown(),
    receivedAt: Timestamp,
  })
  .meta({ id: 'Event' });

/** Largest page of a session's events (`limit` of its events, `eventsLimit` of the session). */
export const SESSION_EVENTS_MAX_LIMIT = 2000;

/**
 * `GET /v1/sessions/{sessionId}` query. `eventsLimit=n`: only the first n events (replay order)
 * and `eventsNextCursor` for the rest (`GET /v1/sessions/{sessionId}/events?cursor=`); 0: no
 * events. Without it, every event of the session.
 */
export const SessionDetailQuery = z.object({
  eventsLimit: queryInt(0, SESSION_EVENTS_MAX_LIMIT).optional(),
});
export type SessionDetailQuery = z.infer<typeof SessionDetailQuery>;

/**
 * `GET /v1/sessions/{sessionId}/events` query: a session's events in replay order (`sequence`,
 * then `id`), keyset paged; `limit` 1–2000, default 500.
 */
export const SessionEventsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(SESSION_EVENTS_MAX_LIMIT).default(500),
  cursor: z.string().max(200).optional(),
});
export type SessionEventsQuery = z.infer<typeof SessionEventsQuery>;

export const SessionDetailView = SessionView.extend({
  runs: z.array(RunView),
  /** In replay order: every event, or the first `eventsLimit` of them. */
  events: z.array(EventView),
  /** With `eventsLimit` only: the cursor of the next events page (null: no more events). */
  eventsNextCursor: z.string().nullable().optional(),
  /** Every state change of the session's approvals, oldest first (creation, decisions, timeouts). */
  approvalTransitions: z.array(ApprovalTransitionView),
  /** The scores of the session and its runs, oldest first (docs/architecture.md#scores). */
  scores: z.array(ScoreView),
  /** The session's LLM calls in total: calls, tokens, cost (docs/architecture.md#llm-calls). */
  llm: LlmTotalsView,
}).meta({ id: 'SessionDetail' });

export const EventStatsView = z
  .object({
    events: z.number().int(),
    sessions: z.number().int(),
    duplicates: z.number().int().describe('event ids stored more than once (must be 0)'),
    byType: z.record(z.string(), z.number().int()),
    decisions: z.record(z.string(), z.number().int()),
  })
  .meta({ id: 'EventStats' });

/**
 * A stored guardrail evaluation (`GET /v1/evaluations/{evaluationId}`): the decision, the call as
 * evaluated (`input`: action, tool, resource, riskLevel, arguments) and the provenance the request
 * carried (docs/provenance.md), null when it carried none. Its tainted arguments name the tool
 * calls (`sources[].toolCallId`) whose `agent.tool.completed` events they came from.
 */
export const EvaluationView = z
  .object({
    id: z.string(),
    agentId: z.string(),
    agentVersionId: z.string().nullable(),
    sessionId: z.string().nullable(),
    runId: z.string().nullable(),
    toolCallId: z.string().nullable(),
    toolName: z.string().nullable(),
    mode: Mode,
    policyDecision: Decision,
    effectiveDecision: Decision,
    matchedGuardrails: z.array(MatchedGuardrail),
    wouldBlock: z.boolean(),
    wouldRequireApproval: z.boolean(),
    dryRun: z.boolean(),
    approvalId: z.string().nullable(),
    input: JsonObject,
    provenance: Provenance.nullable(),
    evaluatedAt: Timestamp,
  })
  .meta({ id: 'Evaluation' });
export type EvaluationView = z.infer<typeof EvaluationView>;

/** Most evaluations `GET /v1/sessions/{sessionId}/evaluations` answers (oldest first). */
export const SESSION_EVALUATIONS_MAX = 2000;
