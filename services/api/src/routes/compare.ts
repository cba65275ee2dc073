import { Router, type RequestHandler } from 'express';
import {
  COMPARE_DEFAULT_DAYS,
  COMPARE_EXAMPLES_MAX,
  Uuid,
  VersionComparisonQuery,
  type RateDifference,
  type SessionRate,
  type VersionComparisonView,
  type VersionFigures,
} from '@agent-warden/contracts';
import {
  exampleSessions,
  findAgent,
  versionActivity,
  versionLlm,
  versionScores,
  versionsOfAgent,
  type ComparisonScope,
  type VersionLlmRow,
  type ExampleOutcome,
  type PrismaClient,
} from '@agent-warden/db';
import { notFound, parseOr400, principalOf, validationError } from '@agent-warden/http';
import { newcombeDifference, wilsonInterval } from '../rate-intervals';

const DAY_MS = 86_400_000;

/** The cost and tokens of a version from its LLM calls (null, null: its sessions made none). */
function llmFigures(l: VersionLlmRow | undefined, sessions: number): Pick<VersionFigures, 'cost' | 'tokens'> {
  if (!l || l.calls === 0) return { cost: null, tokens: null };
  return {
    cost: {
      calls: l.calls,
      totalUsd: l.costUsd,
      perSessionUsd: l.costUsd === null || !sessions ? null : l.costUsd / sessions,
      unpricedCalls: l.unpricedCalls,
    },
    tokens: {
      input: l.inputTokens,
      output: l.outputTokens,
      perSession: sessions ? (l.inputTokens + l.outputTokens) / sessions : 0,
    },
  };
}

/** A note when some LLM calls have no known cost (they are not in `cost.totalUsd`). */
function unpricedNote(llm: VersionLlmRow[]): string[] {
  const n = llm.reduce((sum, l) => sum + l.unpricedCalls, 0);
  return n > 0
    ? [`${n} LLM call(s) of models without a price are not in the cost (docs/architecture.md#llm-calls)`]
    : [];
}

/** A share of sessions with its Wilson interval (null rate and interval when `n` is 0). */
function sessionRate(successes: number, n: number): SessionRate {
  return { successes, n, rate: n ? successes / n : null, interval: wilsonInterval(successes, n) };
}

/**
 * `GET /v1/agents/{agentId}/compare?versions=<id>,<id>[,…]&from=&to=` (read scope): 2–5 versions of
 * the agent side by side over `[from, to)` of session starts (default: the 30 days before `to`,
 * default now), each later version compared with the first (docs/architecture.md#comparing-versions).
 * 400 naming `versions` when the list is not 2–5 distinct versions of this agent, naming `from` when
 * `from >= to`; 404 for an agent of another project or none.
 */
export function compareRouter(deps: { auth: RequestHandler; db: PrismaClient }): Router {
  const { db } = deps;
  const r = Router();
  r.get('/v1/agents/:agentId/compare', deps.auth, async (req, res) => {
    const { projectId } = principalOf(req);
    const agentId = parseOr400(Uuid, req.params.agentId, 'agentId');
    const q = parseOr400(VersionComparisonQuery, req.query, 'query');
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - COMPARE_DEFAULT_DAYS * DAY_MS);
    if (from >= to)
      throw validationError('empty time range', [{ path: 'from', message: 'must be before `to`' }]);
    const agent = await findAgent(db, agentId);
    if (agent?.projectId !== projectId) throw notFound('agent');
    const known = await versionsOfAgent(db, projectId, agentId, q.versions);
    const unknown = q.versions.filter((id) => !known.some((k) => k.id === id));
    if (unknown.length)
      throw validationError('unknown versions', [
        { path: 'versions', message: `not versions of this agent: ${unknown.join(', ')}` },
      ]);

    const scope: ComparisonScope = { projectId, agentId, versionIds: q.versions, from, to };
    const [activity, scores, llm] = await Promise.all([
      versionActivity(db, scope),
      versionScores(db, scope),
      versionLlm(db, scope),
    ]);
    const versions: VersionFigures[] = activity.map((a) => ({
      versionId: a.versionId,
      version: known.find((k) => k.id === a.versionId)!.version,
      sessions: a.sessions,
      toolCallsPerSession: a.sessions ? a.toolCalls / a.sessions : null,
      toolFailuresPerSession: a.sessions ? a.toolFailures / a.sessions : null,
      scores: scores
        .filter((s) => s.versionId === a.versionId)
        .map((s) => ({
          name: s.name,
          dataType: s.dataType,
          n: s.n,
          mean: s.mean,
          success: s.dataType === 'boolean' ? sessionRate(s.successes, s.n) : null,
        })),
      blockedSessions: sessionRate(a.blockedSessions, a.sessions),
      decisions: a.decisions,
      approvals: { count: a.approvals, decided: a.approvalsDecided, medianWaitMs: a.approvalWaitMedianMs },
      ...llmFigures(
        llm.find((l) => l.versionId === a.versionId),
        a.sessions,
      ),
    }));

    const [baseline, ...others] = versions;
    const differences = await Promise.all(
      others.map(async (v) => ({
        baselineVersionId: baseline!.versionId,
        versionId: v.versionId,
        rates: await rateDifferences(db, scope, baseline!, v),
      })),
    );
    const body: VersionComparisonView = {
      agentId,
      from: from.toISOString(),
      to: to.toISOString(),
      versions,
      differences,
      notes: unpricedNote(llm),
    };
    res.json(body);
  });
  return r;
}

/** The rates two versions share (each boolean score name, then blocked sessions) and their differences. */
async function rateDifferences(
  db: PrismaClient,
  scope: ComparisonScope,
  baseline: VersionFigures,
  compared: VersionFigures,
): Promise<RateDifference[]> {
  const names = new Set<string>();
  for (const v of [baseline, compared])
    for (const s of v.scores) if (s.dataType === 'boolean') names.add(s.name);
  const rateOf = (v: VersionFigures, name: string) =>
    v.scores.find((s) => s.name === name && s.dataType === 'boolean')?.success ?? sessionRate(0, 0);
  const pairs: Array<{
    metric: string;
    b: SessionRate;
    c: SessionRate;
    outcome: (up: boolean) => ExampleOutcome;
  }> = [
    ...[...names].sort().map((name) => ({
      metric: `score:${name}`,
      b: rateOf(baseline, name),
      c: rateOf(compared, name),
      outcome: (up: boolean): ExampleOutcome => ({ kind: 'score', name, success: up }),
    })),
    {
      metric: 'blockedSessions',
      b: baseline.blockedSessions,
      c: compared.blockedSessions,
      outcome: (up: boolean): ExampleOutcome => ({ kind: 'blocked', blocked: up }),
    },
  ];
  return Promise.all(
    pairs.map(async (p) => {
      const d = newcombeDifference(p.c.successes, p.c.n, p.b.successes, p.b.n);
      const examples =
        d && d.estimate !== 0
          ? await exampleSessions(
              db,
              scope,
              compared.versionId,
              p.outcome(d.estimate > 0),
              COMPARE_EXAMPLES_MAX,
            )
          : [];
      return {
        metric: p.metric,
        difference: d?.estimate ?? null,
        interval: d ? { low: d.low, high: d.high } : null,
        exampleSessionIds: examples,
      };
    }),
  );
}
