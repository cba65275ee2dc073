import { z } from 'zod';
import { Timestamp, Uuid, BoundedTimestamp } from './common';

/**
 * Read API of LLM calls (docs/architecture.md#llm-calls): a session's calls, per-session totals,
 * usage over time per agent and model, and the activity (event and error rates) charted beside it.
 * Every query is scoped to the caller's project by the server.
 */

/** Where a stored cost came from: the caller (`client`), the price table (`price_table`); null: unknown. */
export const LlmCostSourceView = z.enum(['client', 'price_table']);

/** One stored LLM call (`GET /v1/sessions/{sessionId}/llm-calls`). */
export const LlmCallView = z
  .object({
    /** The event's `llmCallId`, else the event id. */
    id: z.string(),
    sessionId: z.string(),
    runId: z.string().nullable(),
    agentId: z.string(),
    agentVersionId: z.string(),
    /** The `agent.llm.called` event that carried it (its place in the timeline). */
    eventId: z.string(),
    time: Timestamp,
    operation: z.string(),
    provider: z.string().nullable(),
    model: z.string(),
    responseModel: z.string().nullable(),
    inputTokens: z.number().int().nullable(),
    outputTokens: z.number().int().nullable(),
    cachedInputTokens: z.number().int().nullable(),
    /** Latency, ms. */
    durationMs: z.number().nullable(),
    /** USD; null: unknown (no client cost and the model is not in the price table). */
    costUsd: z.number().nullable(),
    costSource: LlmCostSourceView.nullable(),
    finishReasons: z.array(z.string()),
    /** Set when the call failed. */
    error: z.object({ type: z.string().nullable(), message: z.string() }).nullable(),
  })
  .meta({ id: 'LlmCall' });
export type LlmCallView = z.infer<typeof LlmCallView>;

/** LLM totals of a set of calls (a session, a bucket, a model). */
export const LlmTotalsView = z
  .object({
    calls: z.number().int(),
    /** Calls that failed. */
    errors: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    /** Input tokens read from the prompt cache (part of `inputTokens`). */
    cachedInputTokens: z.number().int(),
    /** Sum of the known costs, USD; null when no call has a known cost. */
    costUsd: z.number().nullable(),
    /** Calls with an unknown cost (not in `costUsd`). */
    unpricedCalls: z.number().int(),
  })
  .meta({ id: 'LlmTotals' });
export type LlmTotalsView = z.infer<typeof LlmTotalsView>;

/** Latency percentiles, ms (PostgreSQL `percentile_cont`: linear interpolation); null when no call had a duration. */
export const LatencyPercentiles = z
  .object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() })
  .meta({ id: 'LatencyPercentiles' });

const LlmUsageFigures = LlmTotalsView.extend({ latencyMs: LatencyPercentiles });
const LlmUsageBucketView = LlmUsageFigures.extend({ start: Timestamp }).meta({ id: 'LlmUsageBucket' });

/** Bucket width of the usage and activity statistics. */
export const UsageBucket = z.enum(['hour', 'day']);

/**
 * `GET /v1/llm/usage` and `GET /v1/stats/activity` query: `agentId` (default every agent of the
 * project), `from` inclusive and `to` exclusive (RFC 3339; default the 48 hours, `bucket=hour`, or
 * 30 days, `bucket=day`, before `to`, default now). At most 2,000 buckets.
 */
export const UsageQuery = z
  .object({
    agentId: Uuid.optional(),
    from: BoundedTimestamp.optional(),
    to: BoundedTimestamp.optional(),
    bucket: UsageBucket.default('hour'),
  })
  .meta({ id: 'UsageQuery' });
export type UsageQuery = z.infer<typeof UsageQuery>;

/**
 * `GET /v1/llm/usage`: tokens, cost, calls, errors and latency percentiles per bucket (every bucket
 * of the range, zeros included), per model (with its buckets that have calls) and in total.
 */
export const LlmUsageView = z
  .object({
    agentId: z.string().nullable(),
    bucket: UsageBucket,
    from: Timestamp,
    to: Timestamp,
    items: z.array(LlmUsageBucketView),
    models: z.array(
      LlmUsageFigures.extend({
        provider: z.string().nullable(),
        model: z.string(),
        buckets: z.array(LlmUsageBucketView),
      }).meta({ id: 'LlmModelUsage' }),
    ),
    totals: LlmUsageFigures,
  })
  .meta({ id: 'LlmUsage' });
export type LlmUsageView = z.infer<typeof LlmUsageView>;

/**
 * `GET /v1/stats/activity`: events per bucket (every bucket of the range) with the tool calls, tool
 * failures, LLM calls and failed LLM calls among them: the event rate and error rate charts.
 */
export const ActivityStatsView = z
  .object({
    agentId: z.string().nullable(),
    bucket: UsageBucket,
    from: Timestamp,
    to: Timestamp,
    items: z.array(
      z
        .object({
          start: Timestamp,
          events: z.number().int(),
          toolCalls: z.number().int(),
          toolFailures: z.number().int(),
          llmCalls: z.number().int(),
          llmErrors: z.number().int(),
        })
        .meta({ id: 'ActivityBucket' }),
    ),
  })
  .meta({ id: 'ActivityStats' });
export type ActivityStatsView = z.infer<typeof ActivityStatsView>;
