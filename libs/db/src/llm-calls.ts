import { priceLlmCall, type AgentEvent, type PriceTable } from '@agent-warden/contracts';
import { Prisma, type PrismaClient } from './client';
import type { LlmCall } from './generated/prisma/client';

/*
 * LLM calls (docs/architecture.md#llm-calls): one row per `(project_id, id)`, written by the
 * projector from freshly inserted `agent.llm.called` events (`INSERT … ON CONFLICT DO NOTHING`, in
 * projection/project-rows.ts), priced when stored (docs/decisions.md "LLM calls are priced when
 * projected"); and their reads: a session's calls, per-session totals, usage over time.
 */

/** An LLM call as it is stored (the Prisma model `LlmCall` without `createdAt`). */
export type LlmCallRow = Omit<LlmCall, 'createdAt'>;

/**
 * The row of an `agent.llm.called` event: id = the event's `llmCallId`, else the event id; time =
 * the event's time; cost by contracts `priceLlmCall` with `prices` (the caller's cost, else the
 * table's, else null).
 */
export function llmCallRowOfEvent(
  projectId: string,
  e: Extract<AgentEvent, { type: 'agent.llm.called' }>,
  prices: PriceTable,
): LlmCallRow {
  const d = e.data;
  const { costUsd, costSource } = priceLlmCall(prices, d);
  return {
    id: d.llmCallId ?? e.id,
    projectId,
    sessionId: e.sessionId,
    runId: e.runId ?? null,
    agentId: e.agentId,
    agentVersionId: e.agentVersionId,
    eventId: e.id,
    time: new Date(e.time),
    operation: d.operation,
    provider: d.provider ?? null,
    model: d.model,
    responseModel: d.responseModel ?? null,
    inputTokens: d.inputTokens ?? null,
    outputTokens: d.outputTokens ?? null,
    cachedInputTokens: d.cachedInputTokens ?? null,
    durationMs: d.durationMs ?? null,
    costUsd,
    costSource,
    finishReasons: d.finishReasons ?? [],
    errorType: d.error ? (d.error.type ?? null) : null,
    errorMessage: d.error ? d.error.message : null,
  };
}

/** Most calls `GET /v1/sessions/{sessionId}/llm-calls` answers (oldest first). */
export const SESSION_LLM_CALLS_MAX = 2000;

/** A session's LLM calls, oldest first (then by id), at most `limit`. */
export function listSessionLlmCalls(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  limit: number = SESSION_LLM_CALLS_MAX,
): Promise<LlmCall[]> {
  return db.llmCall.findMany({
    where: { projectId, sessionId },
    orderBy: [{ time: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}

/** LLM totals of one session (zeros when it made no call). */
export interface LlmTotals {
  calls: number;
  /** Calls with an error. */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Sum of the known costs, USD; null when no call has a known cost. */
  costUsd: number | null;
  /** Calls whose cost is unknown (not counted in `costUsd`). */
  unpricedCalls: number;
}

/** Totals of a session without LLM calls. */
export function zeroLlmTotals(): LlmTotals {
  return {
    calls: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: null,
    unpricedCalls: 0,
  };
}

/**
 * LLM totals of the given sessions of the project (a session absent from the map made no call),
 * computed from `llm_calls (project_id, session_id, time)`. Throws on database errors.
 */
export async function llmSessionTotals(
  db: PrismaClient,
  projectId: string,
  sessionIds: readonly string[],
): Promise<Map<string, LlmTotals>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db.$queryRaw<
    {
      session_id: string;
      calls: bigint;
      errors: bigint;
      input: bigint;
      output: bigint;
      cached: bigint;
      cost: number | null;
      unpriced: bigint;
    }[]
  >`
    SELECT session_id::text AS session_id, count(*) AS calls,
           count(*) FILTER (WHERE error_message IS NOT NULL) AS errors,
           coalesce(sum(input_tokens), 0)::bigint AS input, coalesce(sum(output_tokens), 0)::bigint AS output,
           coalesce(sum(cached_input_tokens), 0)::bigint AS cached, sum(cost_usd) AS cost,
           count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced
      FROM llm_calls
     WHERE project_id = ${projectId}::uuid AND session_id = ANY(${[...sessionIds]}::uuid[])
     GROUP BY session_id`;
  return new Map(
    rows.map((r) => [
      r.session_id,
      {
        calls: Number(r.calls),
        errors: Number(r.errors),
        inputTokens: Number(r.input),
        outputTokens: Number(r.output),
        cachedInputTokens: Number(r.cached),
        costUsd: r.cost === null ? null : Number(r.cost),
        unpricedCalls: Number(r.unpriced),
      },
    ]),
  );
}

/** Figures of a set of LLM calls (one bucket, one model, or the whole range). */
export interface LlmUsageFigures extends LlmTotals {
  /** Latency percentiles of the calls with a duration, ms (linear interpolation; null: none). */
  latencyMs: { p50: number | null; p95: number | null; p99: number | null };
}

/** One time bucket of {@link llmUsage}. */
export interface LlmUsageBucket extends LlmUsageFigures {
  /** Bucket start (UTC). */
  start: Date;
}

/** One model of {@link llmUsage}: figures over the range and per bucket (buckets with calls only). */
export interface LlmModelUsage extends LlmUsageFigures {
  provider: string | null;
  model: string;
  buckets: LlmUsageBucket[];
}

const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;

interface FigureRow {
  b: Date | null;
  provider: string | null;
  model: string | null;
  calls: bigint;
  errors: bigint;
  input: bigint;
  output: bigint;
  cached: bigint;
  cost: number | null;
  unpriced: bigint;
  p: (number | null)[] | null;
}

function figuresOf(r: FigureRow): LlmUsageFigures {
  const p = r.p ?? [null, null, null];
  return {
    calls: Number(r.calls),
    errors: Number(r.errors),
    inputTokens: Number(r.input),
    outputTokens: Number(r.output),
    cachedInputTokens: Number(r.cached),
    costUsd: r.cost === null ? null : Number(r.cost),
    unpricedCalls: Number(r.unpriced),
    latencyMs: { p50: p[0] ?? null, p95: p[1] ?? null, p99: p[2] ?? null },
  };
}

/**
 * LLM usage of a project (one agent with `agentId`) with `from <= time < to`: figures per UTC
 * hour or day (every bucket of the range, zeros included), per model (`provider`, `model`) with
 * its own buckets, and over the whole range. Latency percentiles are PostgreSQL's
 * `percentile_cont` (linear interpolation between the closest ranks) over `duration_ms`.
 * One grouped query (`GROUPING SETS`) served by `llm_calls (project_id, agent_id | time)`.
 */
export async function llmUsage(
  db: PrismaClient,
  projectId: string,
  q: { agentId?: string; from: Date; to: Date; bucket: 'hour' | 'day' },
): Promise<{ buckets: LlmUsageBucket[]; models: LlmModelUsage[]; totals: LlmUsageFigures }> {
  const agent = q.agentId ? Prisma.sql`AND agent_id = ${q.agentId}::uuid` : Prisma.empty;
  const rows = await db.$queryRaw<(FigureRow & { g: number })[]>`
    SELECT b, provider, model, GROUPING(b, provider, model)::int AS g,
           count(*) AS calls, count(*) FILTER (WHERE error_message IS NOT NULL) AS errors,
           coalesce(sum(input_tokens), 0)::bigint AS input, coalesce(sum(output_tokens), 0)::bigint AS output,
           coalesce(sum(cached_input_tokens), 0)::bigint AS cached, sum(cost_usd) AS cost,
           count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced,
           percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY duration_ms) AS p
      FROM (SELECT date_trunc(${q.bucket}, time, 'UTC') AS b, provider, model, error_message, input_tokens,
                   output_tokens, cached_input_tokens, cost_usd, duration_ms
              FROM llm_calls
             WHERE project_id = ${projectId}::uuid ${agent}
               AND time >= ${q.from}::timestamptz AND time < ${q.to}::timestamptz) c
     GROUP BY GROUPING SETS ((b), (b, provider, model), (provider, model), ())`;
  // GROUPING(b, provider, model): 0 = per bucket and model, 3 = per bucket, 4 = per model, 7 = total.
  const ms = BUCKET_MS[q.bucket];
  const first = Math.floor(q.from.getTime() / ms) * ms;
  const count = q.to.getTime() <= first ? 0 : Math.ceil((q.to.getTime() - first) / ms);
  const empty = (): LlmUsageFigures => ({
    ...zeroLlmTotals(),
    latencyMs: { p50: null, p95: null, p99: null },
  });
  const buckets: LlmUsageBucket[] = Array.from({ length: count }, (_, i) => ({
    start: new Date(first + i * ms),
    ...empty(),
  }));
  const models = new Map<string, LlmModelUsage>();
  const modelOf = (r: FigureRow) => {
    const key = `${r.provider ?? ''}\u0000${r.model}`;
    let m = models.get(key);
    if (!m) {
      m = { provider: r.provider, model: r.model ?? '', buckets: [], ...empty() };
      models.set(key, m);
    }
    return m;
  };
  let totals = empty();
  for (const r of rows) {
    if (r.g === 7) totals = figuresOf(r);
    else if (r.g === 4) Object.assign(modelOf(r), figuresOf(r));
    else if (r.g === 3) {
      const i = Math.round((new Date(r.b!).getTime() - first) / ms);
      if (buckets[i]) Object.assign(buckets[i], figuresOf(r));
    } else if (r.g === 0) modelOf(r).buckets.push({ start: new Date(r.b!), ...figuresOf(r) });
  }
  for (const m of models.values()) m.buckets.sort((a, b) => a.start.getTime() - b.start.getTime());
  return {
    buckets,
    models: [...models.values()].sort((a, b) => b.calls - a.calls || a.model.localeCompare(b.model)),
    totals,
  };
}

/** One bucket of {@link activityOverTime}. */
export interface ActivityBucket {
  start: Date;
  /** Stored events. */
  events: number;
  /** `agent.tool.started` events. */
  toolCalls: number;
  /** `agent.tool.failed` events. */
  toolFailures: number;
  /** `agent.llm.called` events. */
  llmCalls: number;
  /** `agent.llm.called` events with an `error`. */
  llmErrors: number;
}

/**
 * Event rate and error rate of a project (one agent with `agentId`) with `from <= time < to`, per
 * UTC hour or day, every bucket of the range (zeros included), from the events themselves
 * (`events (project_id, agent_id | time)`). Throws on database errors.
 */
export async function activityOverTime(
  db: PrismaClient,
  projectId: string,
  q: { agentId?: string; from: Date; to: Date; bucket: 'hour' | 'day' },
): Promise<ActivityBucket[]> {
  const agent = q.agentId ? Prisma.sql`AND agent_id = ${q.agentId}::uuid` : Prisma.empty;
  const rows = await db.$queryRaw<
    { b: Date; events: bigint; tools: bigint; failures: bigint; llm: bigint; llm_errors: bigint }[]
  >`
    SELECT date_trunc(${q.bucket}, time, 'UTC') AS b, count(*) AS events,
           count(*) FILTER (WHERE type = 'agent.tool.started') AS tools,
           count(*) FILTER (WHERE type = 'agent.tool.failed') AS failures,
           count(*) FILTER (WHERE type = 'agent.llm.called') AS llm,
           count(*) FILTER (WHERE type = 'agent.llm.called' AND data ? 'error') AS llm_errors
      FROM events
     WHERE project_id = ${projectId}::uuid ${agent}
       AND time >= ${q.from}::timestamptz AND time < ${q.to}::timestamptz
     GROUP BY 1`;
  const ms = BUCKET_MS[q.bucket];
  const first = Math.floor(q.from.getTime() / ms) * ms;
  const count = q.to.getTime() <= first ? 0 : Math.ceil((q.to.getTime() - first) / ms);
  const buckets: ActivityBucket[] = Array.from({ length: count }, (_, i) => ({
    start: new Date(first + i * ms),
    events: 0,
    toolCalls: 0,
    toolFailures: 0,
    llmCalls: 0,
    llmErrors: 0,
  }));
  for (const r of rows) {
    const b = buckets[Math.round((new Date(r.b).getTime() - first) / ms)];
    if (!b) continue;
    b.events = Number(r.events);
    b.toolCalls = Number(r.tools);
    b.toolFailures = Number(r.failures);
    b.llmCalls = Number(r.llm);
    b.llmErrors = Number(r.llm_errors);
  }
  return buckets;
}
