import { z } from 'zod';
import { Decision, Timestamp, Uuid, BoundedTimestamp } from './common';
import { LlmTotalsView } from './llm-api';
import { AgentVersionView, AgentView, PageQuery, SessionView } from './read';

/**
 * Query and view schemas of the dashboard's read API (issue 6): the sessions list filters, the
 * events explorer, one agent with per-version figures, and the guardrail statistics. Every query
 * is scoped to the caller's project by the server.
 */

/** `true` / `false` (also `1` / `0`) in a query string → boolean. */
const QueryBool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Session statuses: `active` until `agent.session.ended` sets its status. */
export const SessionStatus = z.enum(['active', 'completed', 'failed', 'cancelled']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Comma-separated statuses in a query string → array (empty items dropped). */
const StatusList = z
  .string()
  .max(200)
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(SessionStatus).min(1).max(4));

/** `from` / `to` query bounds (RFC 3339): `from` inclusive, `to` exclusive. */
const TimeRange = z.object({ from: BoundedTimestamp.optional(), to: BoundedTimestamp.optional() });

/**
 * `GET /v1/sessions` query: newest first by `startedAt` (keyset paging with `cursor`), every
 * filter optional and combined with AND. `from`/`to` bound `startedAt`. `hasBlocks=true` keeps
 * sessions with an enforce-mode evaluation whose policy decision is `block` or a client
 * `agent.guardrail.evaluated` event with outcome `blocked` (`false`: sessions with neither).
 * `hasPendingApprovals` likewise for approvals in status `pending`. `q` is a case-insensitive
 * substring of `inputSummary` (`%` and `_` match themselves).
 */
export const SessionsListQuery = PageQuery.extend({
  agentId: Uuid.optional(),
  agentVersionId: Uuid.optional(),
  ...TimeRange.shape,
  /** One status or several, comma-separated: `failed,cancelled`. */
  status: StatusList.optional(),
  hasBlocks: QueryBool.optional(),
  hasPendingApprovals: QueryBool.optional(),
  q: z.string().trim().min(1).max(200).optional(),
}).meta({ id: 'SessionsListQuery' });
export type SessionsListQuery = z.infer<typeof SessionsListQuery>;

/** One row of the sessions list: the session plus its guardrail and LLM figures. */
export const SessionListItem = SessionView.extend({
  /** Blocks seen in the session (enforce-mode `block` evaluations + client events with outcome `blocked`). */
  blocks: z.number().int(),
  /** Approvals of the session still `pending`. */
  pendingApprovals: z.number().int(),
  /** The session's LLM calls in total: calls, tokens, cost (docs/architecture.md#llm-calls). */
  llm: LlmTotalsView,
}).meta({ id: 'SessionListItem' });
export type SessionListItem = z.infer<typeof SessionListItem>;

/**
 * `GET /v1/events` query (events explorer): newest first by `time`, keyset paging. `decision`
 * keeps `agent.guardrail.evaluated` events whose `policyDecision` is that decision (it implies
 * that type). `from` inclusive, `to` exclusive, on the event's `time`.
 */
export const EventsExplorerQuery = PageQuery.extend({
  type: z.string().max(200).optional(),
  agentId: Uuid.optional(),
  sessionId: Uuid.optional(),
  decision: Decision.optional(),
  ...TimeRange.shape,
}).meta({ id: 'EventsExplorerQuery' });
export type EventsExplorerQuery = z.infer<typeof EventsExplorerQuery>;

/** Per-decision counts (`policyDecision` of the evaluations): every decision present, 0 when none. */
export const DecisionCounts = z
  .object({
    allow: z.number().int(),
    warn: z.number().int(),
    block: z.number().int(),
    require_approval: z.number().int(),
  })
  .meta({ id: 'DecisionCounts' });
export type DecisionCounts = z.infer<typeof DecisionCounts>;

/** One agent version with what it did. */
export const AgentVersionDetail = AgentVersionView.extend({
  /** Earliest session start of this version (null: no session yet). */
  firstSeenAt: Timestamp.nullable(),
  /** Latest event of this version's sessions (null: no session yet). */
  lastSeenAt: Timestamp.nullable(),
  sessions: z.number().int(),
  /** Guardrail evaluations of this version by policy decision (dry runs excluded). */
  decisions: DecisionCounts,
}).meta({ id: 'AgentVersionDetail' });

/**
 * `GET /v1/agents/{agentId}`: identity, versions newest first, first and last seen, totals.
 * `lastSeenAt` is the last time the agent was heard of (registration or event).
 */
export const AgentDetailView = AgentView.extend({
  /** Earliest session start (null: never ran a session). */
  firstSeenAt: Timestamp.nullable(),
  sessions: z.number().int(),
  decisions: DecisionCounts,
  versions: z.array(AgentVersionDetail),
}).meta({ id: 'AgentDetail' });
export type AgentDetailView = z.infer<typeof AgentDetailView>;

/** Bucket width of the decision statistics. */
export const StatsBucket = z.enum(['hour', 'day']);
export type StatsBucket = z.infer<typeof StatsBucket>;

/**
 * `GET /v1/stats/decisions` query. Default range: the last 7 days (`bucket=day`) or 48 hours
 * (`bucket=hour`) before `to` (default now). At most 2,000 buckets.
 */
export const DecisionStatsQuery = z
  .object({ ...TimeRange.shape, bucket: StatsBucket.default('hour') })
  .meta({ id: 'DecisionStatsQuery' });
export type DecisionStatsQuery = z.infer<typeof DecisionStatsQuery>;

/** Evaluations per time bucket by policy decision; every bucket of the range is present (zeros included). */
export const DecisionStatsView = z
  .object({
    bucket: StatsBucket,
    from: Timestamp,
    to: Timestamp,
    /** Buckets in time order; `start` is the bucket's start (UTC). */
    items: z.array(DecisionCounts.extend({ start: Timestamp, total: z.number().int() })),
    totals: DecisionCounts,
  })
  .meta({ id: 'DecisionStats' });
export type DecisionStatsView = z.infer<typeof DecisionStatsView>;

/** `GET /v1/stats/top-policies` query; default range: the last 7 days before `to` (default now). */
export const TopPoliciesQuery = z
  .object({ ...TimeRange.shape, limit: z.coerce.number().int().min(1).max(100).default(10) })
  .meta({ id: 'TopPoliciesQuery' });
export type TopPoliciesQuery = z.infer<typeof TopPoliciesQuery>;

/** Most matched policies in the range (from the evaluations' `matchedGuardrails`), most matches first. */
export const TopPoliciesView = z
  .object({
    from: Timestamp,
    to: Timestamp,
    items: z.array(
      z.object({
        policyId: z.string(),
        /** The policy's name in its latest matched version. */
        name: z.string(),
        matches: z.number().int(),
        /** Matches by the policy's own decision (what it asked for). */
        decisions: DecisionCounts,
        lastMatchedAt: Timestamp,
      }),
    ),
  })
  .meta({ id: 'TopPolicies' });
export type TopPoliciesView = z.infer<typeof TopPoliciesView>;
