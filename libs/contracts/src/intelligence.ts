import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { INT4_MAX } from './json-safety';
import { PolicyInput } from './policy';

/**
 * Runtime intelligence of one session (docs/architecture.md#runtime-intelligence). Every event id cited
 * anywhere in it (`eventIds`, `evidenceEventIds`) is the id of a stored event of THAT session —
 * the analysers only cite what they read, and the LLM narrative's citations are filtered.
 */

/** How bad an action item or recommendation is; `critical` is for what a person must look at now. */
export const Severity = z.enum(['info', 'low', 'medium', 'high', 'critical']);
export type Severity = z.infer<typeof Severity>;

/** Figures of a session (counts, and times in ms). */
export const IntelligenceFigures = z
  .object({
    runs: z.number().int(),
    runsByStatus: z.record(z.string(), z.number().int()),
    events: z.number().int(),
    toolCalls: z.number().int(),
    /** Tool name → `{ calls, failures }`. */
    toolCallsByTool: z.record(z.string(), z.object({ calls: z.number().int(), failures: z.number().int() })),
    toolFailures: z.number().int(),
    /** Policy decision → number of guardrail evaluations with it. */
    decisions: z.record(z.string(), z.number().int()),
    approvals: z.object({
      requested: z.number().int(),
      approved: z.number().int(),
      denied: z.number().int(),
      expired: z.number().int(),
      cancelled: z.number().int(),
      pending: z.number().int(),
      /** Wait time of each resolved approval, ms, in order. */
      waitMs: z.array(z.number()),
    }),
    /** Session duration: last event time − first event time, ms. */
    durationMs: z.number(),
    /**
     * Where the event times come from, from the session attribute `timing` of a replay
     * (scripts/replay/README.md "Timing"): `source` the logged run's own times, `source-total-only`
     * its total shared out over the steps, `replay` the replay's clock (then `durationMs` is not the
     * agent's). Absent: the client's clock as the agent ran.
     */
    timing: z.enum(['source', 'source-total-only', 'replay']).optional(),
    /** Events missing from the per-session `sequence` (1..max), i.e. lost on the way. */
    lostEvents: z.number().int(),
    /** The missing sequence ranges, inclusive, e.g. `[[4, 6]]`. At most 100 ranges. */
    sequenceGaps: z.array(z.tuple([z.number().int(), z.number().int()])),
  })
  .meta({ id: 'IntelligenceFigures' });
export type IntelligenceFigures = z.infer<typeof IntelligenceFigures>;

/** The summary: what the agent was asked, what it did, the outcome, and the figures. */
export const IntelligenceSummary = z
  .object({
    /** A short paragraph a person reads first. */
    text: z.string(),
    /** What the agent was asked (the session's or first run's input summary, or first user message). */
    input: z.string().nullable(),
    /** `succeeded` | `failed` | `cancelled` | `completed` | `unknown` … with a short explanation. */
    outcome: z.object({ status: z.string(), text: z.string() }),
    figures: IntelligenceFigures,
  })
  .meta({ id: 'IntelligenceSummary' });
export type IntelligenceSummary = z.infer<typeof IntelligenceSummary>;

/** Kinds of moments on the story timeline. */
export const StoryMomentKind = z.enum([
  'start',
  'input',
  'tool_call',
  'failure',
  'retry',
  'guardrail',
  'block',
  'approval',
  'message',
  'gap',
  'end',
]);
export type StoryMomentKind = z.infer<typeof StoryMomentKind>;

/** One moment that matters on the story timeline, naming the events it is made of. */
export const StoryMoment = z
  .object({
    kind: StoryMomentKind,
    time: Timestamp,
    title: z.string(),
    text: z.string().optional(),
    /** Ids of this session's events the moment is made of (at least one). */
    eventIds: z.array(z.string()).min(1),
  })
  .meta({ id: 'StoryMoment' });
export type StoryMoment = z.infer<typeof StoryMoment>;

/** Stable kinds of action items (the analyser that raised it). */
export const ActionItemKind = z.enum([
  'tool_failing_repeatedly',
  'approval_timed_out',
  'run_failed',
  'session_failed',
  'would_have_been_blocked',
  'blocked_action',
  'events_lost',
  'suspicious_data_flow',
  'duplicate_side_effect',
  'compensated_action',
  'retry_loop',
  'ignored_error',
  'unconfirmed_side_effect',
  'unrequested_action',
  'no_final_answer',
  'contradicted_tool_fact',
  'unsupported_value',
  'unverified_target',
  'differs_from_agreed_plan',
  'unresolved_request',
  'evaluator_failure_cause',
]);
export type ActionItemKind = z.infer<typeof ActionItemKind>;

/** What a person should look at, with its evidence. */
export const ActionItem = z
  .object({
    kind: ActionItemKind,
    severity: Severity,
    title: z.string(),
    detail: z.string(),
    evidenceEventIds: z.array(z.string()),
  })
  .meta({ id: 'ActionItem' });
export type ActionItem = z.infer<typeof ActionItem>;

/** A recommendation as the analysers propose it (before it is stored). */
export const RecommendationDraft = z
  .object({
    /** Stable analyser id, e.g. `tool_output_to_sensitive_argument`. */
    kind: z.string(),
    title: z.string(),
    rationale: z.string(),
    severity: Severity,
    /** A draft policy in the policy format; always `enabled: false`. */
    policy: PolicyInput,
    evidenceEventIds: z.array(z.string()).min(1),
  })
  .meta({ id: 'RecommendationDraft' });
export type RecommendationDraft = z.infer<typeof RecommendationDraft>;

/** What the analysers (and optionally the LLM narrative) produce for one session. */
export const IntelligenceDraft = z.object({
  summary: IntelligenceSummary,
  story: z.array(StoryMoment),
  actionItems: z.array(ActionItem),
  recommendations: z.array(RecommendationDraft),
  /** `deterministic`, or `llm:<model>` when the narrative texts came from a model. */
  generator: z.string(),
});
export type IntelligenceDraft = z.infer<typeof IntelligenceDraft>;

export const RecommendationStatus = z.enum(['open', 'dismissed', 'accepted']);
export type RecommendationStatus = z.infer<typeof RecommendationStatus>;

/** A stored recommendation (`GET /v1/recommendations`, and inside `SessionIntelligenceView`). */
export const RecommendationView = RecommendationDraft.extend({
  id: Uuid,
  sessionId: z.string(),
  intelligenceId: Uuid,
  status: RecommendationStatus,
  /** The disabled draft policy created when a person accepted it. */
  policyId: Uuid.nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: Timestamp.nullable(),
  createdAt: Timestamp,
}).meta({ id: 'RecommendationView' });
export type RecommendationView = z.infer<typeof RecommendationView>;

/** Why a version was written: the `session-ready` job's reason (contracts queues.ts `SessionReadyReason`). */
export const IntelligenceReason = z.enum(['ended', 'quiet', 'late_event', 'manual']);

/** One stored version of a session's intelligence. */
export const SessionIntelligenceView = z
  .object({
    id: Uuid,
    sessionId: z.string(),
    version: z.number().int().min(1),
    /** `stale` once events arrived after it was written (a newer version is on its way). */
    status: z.enum(['current', 'stale']),
    reason: IntelligenceReason,
    generator: z.string(),
    summary: IntelligenceSummary,
    story: z.array(StoryMoment),
    actionItems: z.array(ActionItem),
    recommendations: z.array(RecommendationView),
    eventCount: z.number().int(),
    lastEventAt: Timestamp,
    createdAt: Timestamp,
  })
  .meta({ id: 'SessionIntelligenceView' });
export type SessionIntelligenceView = z.infer<typeof SessionIntelligenceView>;

/** `POST /v1/recommendations/{id}/decision`: dismiss, or accept (creates a DISABLED draft policy). */
export const RecommendationDecisionRequest = z
  .object({ status: z.enum(['dismissed', 'accepted']), comment: z.string().max(2000).optional() })
  .meta({ id: 'RecommendationDecisionRequest' });
export type RecommendationDecisionRequest = z.infer<typeof RecommendationDecisionRequest>;

/**
 * `GET /v1/recommendations` filters: newest first, keyset paging with `cursor`; `sessionId`, when
 * given, must be a UUID (400 otherwise).
 */
export const RecommendationListQuery = z
  .object({
    status: RecommendationStatus.optional(),
    kind: z.string().max(200).optional(),
    sessionId: z.string().optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().optional(),
  })
  .meta({ id: 'RecommendationListQuery' });
export type RecommendationListQuery = z.infer<typeof RecommendationListQuery>;

/** `GET /v1/sessions/{sessionId}/intelligence` query: `version` N (default: the latest version). */
export const IntelligenceVersionQuery = z.object({
  version: z.coerce.number().int().min(1).max(INT4_MAX).optional(),
});
export type IntelligenceVersionQuery = z.infer<typeof IntelligenceVersionQuery>;

/** One entry of `GET /v1/sessions/{sessionId}/intelligence/versions` (newest first): a version without its contents. */
export const IntelligenceVersionView = SessionIntelligenceView.pick({
  id: true,
  version: true,
  status: true,
  reason: true,
  generator: true,
  eventCount: true,
  lastEventAt: true,
  createdAt: true,
}).meta({ id: 'IntelligenceVersion' });
export type IntelligenceVersionView = z.infer<typeof IntelligenceVersionView>;

/** `POST /v1/sessions/{sessionId}/intelligence` (202): the queued `session-ready` job. */
export const IntelligenceJobAccepted = z
  .object({
    /** Id of the queued job (a pending readiness job of the session is replaced by it). */
    jobId: z.string(),
    projectId: Uuid,
    sessionId: z.string(),
    reason: z.literal('manual'),
  })
  .meta({ id: 'IntelligenceJobAccepted' });
export type IntelligenceJobAccepted = z.infer<typeof IntelligenceJobAccepted>;

/** `GET /v1/intelligence/jobs/failed` query: at most `limit` jobs of the caller's project. */
export const FailedIntelligenceJobsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type FailedIntelligenceJobsQuery = z.infer<typeof FailedIntelligenceJobsQuery>;

/** A `session-ready` job that used up its attempts, as the job queue keeps it. */
export const FailedIntelligenceJob = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    reason: IntelligenceReason,
    /** Message of the error thrown by the last attempt. */
    error: z.string(),
    attempts: z.number().int(),
    failedAt: Timestamp,
  })
  .meta({ id: 'FailedIntelligenceJob' });
export type FailedIntelligenceJob = z.infer<typeof FailedIntelligenceJob>;
