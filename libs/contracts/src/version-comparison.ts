import { z } from 'zod';
import { Timestamp, Uuid, BoundedTimestamp } from './common';
import { DecisionCounts } from './dashboard-api';

/**
 * The agent version comparison, `GET /v1/agents/{agentId}/compare` (docs/architecture.md#comparing-versions):
 * 2–5 versions of one agent side by side over a window, with the difference of each rate from the
 * first version (the baseline) and its 95 % interval.
 */

/** Fewest and most versions one comparison takes. */
export const COMPARE_VERSIONS_MIN = 2;
export const COMPARE_VERSIONS_MAX = 5;
/** Example sessions given per difference. */
export const COMPARE_EXAMPLES_MAX = 3;
/** Default window: this many days before `to`. */
export const COMPARE_DEFAULT_DAYS = 30;

/** `versions=<id>,<id>[,…]`: 2–5 distinct version ids, comma-separated, the first is the baseline. */
const VersionList = z
  .string()
  .max(COMPARE_VERSIONS_MAX * 40)
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(Uuid)
      .min(COMPARE_VERSIONS_MIN)
      .max(COMPARE_VERSIONS_MAX)
      .refine((ids) => new Set(ids).size === ids.length, 'versions must be distinct'),
  );

/** `GET /v1/agents/{agentId}/compare` query. `from` inclusive, `to` exclusive, on the session's start. */
export const VersionComparisonQuery = z
  .object({ versions: VersionList, from: BoundedTimestamp.optional(), to: BoundedTimestamp.optional() })
  .meta({ id: 'VersionComparisonQuery' });
export type VersionComparisonQuery = z.infer<typeof VersionComparisonQuery>;

/** A 95 % interval of a rate or of a difference of rates. */
export const RateInterval = z.object({ low: z.number(), high: z.number() }).meta({ id: 'RateInterval' });
export type RateInterval = z.infer<typeof RateInterval>;

/** A share of sessions with its 95 % Wilson score interval; `rate` and `interval` are null when `n` is 0. */
export const SessionRate = z
  .object({
    successes: z.number().int(),
    n: z.number().int(),
    rate: z.number().nullable(),
    interval: RateInterval.nullable(),
  })
  .meta({ id: 'SessionRate' });
export type SessionRate = z.infer<typeof SessionRate>;

/** One numeric or boolean score name of a version: `n` sessions scored (their latest value each). */
export const VersionScoreFigures = z
  .object({
    name: z.string(),
    dataType: z.enum(['numeric', 'boolean']),
    n: z.number().int(),
    /** Mean of the sessions' latest values (booleans as 1 / 0). */
    mean: z.number(),
    /** Boolean scores only: the share of `true`; null for a numeric score. */
    success: SessionRate.nullable(),
  })
  .meta({ id: 'VersionScoreFigures' });
export type VersionScoreFigures = z.infer<typeof VersionScoreFigures>;

/** What a version's sessions of the window did. */
export const VersionFigures = z
  .object({
    versionId: z.string(),
    version: z.string(),
    sessions: z.number().int(),
    /** Mean `agent.tool.started` events per session; null without sessions. */
    toolCallsPerSession: z.number().nullable(),
    /** Mean `agent.tool.failed` events per session; null without sessions. */
    toolFailuresPerSession: z.number().nullable(),
    scores: z.array(VersionScoreFigures),
    /** Sessions with at least one `block` decision (dry runs excluded). */
    blockedSessions: SessionRate,
    /** Guardrail evaluations of the sessions by policy decision (dry runs excluded). */
    decisions: DecisionCounts,
    approvals: z.object({
      count: z.number().int(),
      decided: z.number().int(),
      /** Median `decidedAt − createdAt` of the decided approvals, ms; null when none was decided. */
      medianWaitMs: z.number().nullable(),
    }),
    /**
     * LLM cost of the sessions (docs/architecture.md#llm-calls): `totalUsd` sums the calls with a
     * known cost (null when none has one), `perSessionUsd` is it over every session of the window,
     * `unpricedCalls` counts the calls left out. Null when the sessions made no LLM call.
     */
    cost: z
      .object({
        calls: z.number().int(),
        totalUsd: z.number().nullable(),
        perSessionUsd: z.number().nullable(),
        unpricedCalls: z.number().int(),
      })
      .nullable(),
    /** LLM tokens of the sessions, and input + output per session; null when they made no LLM call. */
    tokens: z
      .object({ input: z.number().int(), output: z.number().int(), perSession: z.number() })
      .nullable(),
  })
  .meta({ id: 'VersionFigures' });
export type VersionFigures = z.infer<typeof VersionFigures>;

/** The difference of one rate between a version and the baseline. */
export const RateDifference = z
  .object({
    /** `score:<name>` for a boolean score, `blockedSessions` for sessions with a block. */
    metric: z.string(),
    /** Compared rate − baseline rate; null when a side has no sessions for it. */
    difference: z.number().nullable(),
    /** 95 % interval by Newcombe's hybrid score method (method 10); null with `difference`. */
    interval: RateInterval.nullable(),
    /**
     * Up to 3 sessions of the compared version showing the difference: where the outcome (a
     * success, a block) happened when its rate went up, where it did not when it went down.
     */
    exampleSessionIds: z.array(z.string()),
  })
  .meta({ id: 'RateDifference' });
export type RateDifference = z.infer<typeof RateDifference>;

/** `GET /v1/agents/{agentId}/compare` answer. */
export const VersionComparisonView = z
  .object({
    agentId: z.string(),
    from: Timestamp,
    to: Timestamp,
    /** The versions in the requested order; the first is the baseline. */
    versions: z.array(VersionFigures),
    /** One entry per later version, compared with the baseline. */
    differences: z.array(
      z.object({ baselineVersionId: z.string(), versionId: z.string(), rates: z.array(RateDifference) }),
    ),
    notes: z.array(z.string()),
  })
  .meta({ id: 'VersionComparison' });
export type VersionComparisonView = z.infer<typeof VersionComparisonView>;
