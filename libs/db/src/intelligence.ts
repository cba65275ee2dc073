import {
  Capability,
  newId,
  PolicyInput,
  type EventType,
  type IntelligenceDraft,
  type MatchedGuardrail,
  type RecommendationStatus,
  type RecommendationView,
  type SessionIntelligenceView,
  type SessionReadyReason,
  type SessionInput,
} from '@agent-warden/contracts';
import { Prisma, type PrismaClient } from './client';
import type { Recommendation, SessionIntelligence } from './generated/prisma/client';
import { recordAudit, type Actor } from './audit';
import { createPolicy, PolicyNameConflictError } from './policy-admin';

export type { Recommendation, SessionIntelligence };

/**
 * Runtime intelligence storage (docs/architecture.md#runtime-intelligence): what the worker reads about a
 * session, the versioned `session_intelligence` rows with their recommendations, and the decisions
 * people take on recommendations. Every query is scoped to one project.
 */

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The tool names among an agent version's declared capabilities (contracts `Capability`; `kind`
 * defaults to `tool`), or null when it declared none.
 */
function declaredTools(capabilities: unknown): string[] | null {
  const parsed = Capability.array().safeParse(capabilities);
  const names = parsed.success ? parsed.data.filter((c) => c.kind === 'tool').map((c) => c.name) : [];
  return names.length > 0 ? names : null;
}

/**
 * Everything the analysers read about one session (libs/intelligence `SessionInput`): the session
 * with its agent's key and the tools its version declared, its runs (by start), its events ordered
 * by `sequence`, its approvals and the guardrail evaluations recorded for it (dry runs excluded).
 * Null when the project has no such session.
 */
export async function loadSessionForAnalysis(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
): Promise<SessionInput | null> {
  const s = await db.session.findFirst({
    where: { id: sessionId, projectId },
    include: { agent: { select: { key: true } }, agentVersion: { select: { capabilities: true } } },
  });
  if (!s) return null;
  const [runs, events, approvals, evaluations] = await Promise.all([
    db.run.findMany({ where: { sessionId, projectId }, orderBy: [{ startedAt: 'asc' }, { id: 'asc' }] }),
    db.event.findMany({
      where: { sessionId, projectId },
      orderBy: [{ sequence: 'asc' }, { time: 'asc' }, { id: 'asc' }],
    }),
    db.approval.findMany({ where: { sessionId, projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.guardrailEvaluation.findMany({
      where: { sessionId, projectId, dryRun: false },
      orderBy: [{ evaluatedAt: 'asc' }, { id: 'asc' }],
    }),
  ]);
  return {
    session: {
      id: s.id,
      projectId: s.projectId,
      agentId: s.agentId,
      agentKey: s.agent.key,
      status: s.status,
      inputSummary: s.inputSummary,
      startedAt: iso(s.startedAt),
      endedAt: isoOrNull(s.endedAt),
      lastEventAt: iso(s.lastEventAt),
      eventCount: s.eventCount,
      maxSequence: s.maxSequence,
      agentTools: declaredTools(s.agentVersion.capabilities),
    },
    runs: runs.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      inputSummary: r.inputSummary,
      outputSummary: r.outputSummary,
      error: r.error,
      startedAt: isoOrNull(r.startedAt),
      endedAt: isoOrNull(r.endedAt),
    })),
    events: events.map((e) => ({
      id: e.id,
      type: e.type as EventType,
      time: iso(e.time),
      sequence: e.sequence,
      runId: e.runId,
      parentId: e.parentId,
      data: (e.data ?? {}) as Record<string, unknown>,
    })),
    approvals: approvals.map((a) => ({
      id: a.id,
      evaluationId: a.evaluationId,
      toolName: a.toolName,
      status: a.status,
      createdAt: iso(a.createdAt),
      expiresAt: iso(a.expiresAt),
      decidedAt: isoOrNull(a.decidedAt),
      decidedBy: a.decidedBy,
    })),
    evaluations: evaluations.map((v) => ({
      evaluationId: v.id,
      toolCallId: v.toolCallId,
      toolName: v.toolName,
      mode: v.mode as 'monitor' | 'enforce',
      policyDecision: v.policyDecision,
      effectiveDecision: v.effectiveDecision,
      wouldBlock: v.wouldBlock,
      wouldRequireApproval: v.wouldRequireApproval,
      matchedGuardrails: v.matchedGuardrails as unknown as MatchedGuardrail[],
      evaluatedAt: iso(v.evaluatedAt),
    })),
  };
}

/** Maps a stored recommendation to its wire form (contracts `RecommendationView`). */
export function recommendationView(r: Recommendation): RecommendationView {
  return {
    id: r.id,
    sessionId: r.sessionId,
    intelligenceId: r.intelligenceId,
    kind: r.kind,
    title: r.title,
    rationale: r.rationale,
    severity: r.severity as RecommendationView['severity'],
    policy: r.policy as unknown as RecommendationView['policy'],
    evidenceEventIds: r.evidenceEventIds,
    status: r.status as RecommendationStatus,
    policyId: r.policyId,
    decidedBy: r.decidedBy,
    decidedAt: isoOrNull(r.decidedAt),
    createdAt: iso(r.createdAt),
  };
}

/** Maps a stored version and its recommendations to its wire form (contracts `SessionIntelligenceView`). */
export function intelligenceView(
  i: SessionIntelligence,
  recommendations: readonly Recommendation[],
): SessionIntelligenceView {
  return {
    id: i.id,
    sessionId: i.sessionId,
    version: i.version,
    status: i.status as SessionIntelligenceView['status'],
    reason: i.reason as SessionReadyReason,
    generator: i.generator,
    summary: i.summary as unknown as SessionIntelligenceView['summary'],
    story: i.story as unknown as SessionIntelligenceView['story'],
    actionItems: i.actionItems as unknown as SessionIntelligenceView['actionItems'],
    recommendations: recommendations.map(recommendationView),
    eventCount: i.eventCount,
    lastEventAt: iso(i.lastEventAt),
    createdAt: iso(i.createdAt),
  };
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

/** First key of the advisory locks that serialise intelligence writes of one session. */
const INTELLIGENCE_LOCK_NAMESPACE = 7271;

/**
 * Stores the next version of a session's intelligence (1, 2, …) with its recommendations, in one
 * transaction holding a per-session advisory lock (so concurrent writers get distinct versions).
 * Earlier versions become `stale`; the new one is `current` unless the session already holds more
 * events than were analysed (`eventCount`), in which case it is written `stale` at once (a newer
 * analysis is scheduled by the projector). Recommendation policies are stored with `enabled: false`;
 * a recommendation whose kind and title a person already accepted or dismissed for this session is
 * not stored again.
 */
export async function saveIntelligence(
  db: PrismaClient,
  input: {
    projectId: string;
    sessionId: string;
    reason: SessionReadyReason;
    draft: IntelligenceDraft;
    /** Events the analysis read. */
    eventCount: number;
    /** The session's last event time at analysis time. */
    lastEventAt: Date;
  },
): Promise<SessionIntelligenceView> {
  const { projectId, sessionId, draft } = input;
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${INTELLIGENCE_LOCK_NAMESPACE}::int4, hashtext(${projectId}::text || ${sessionId}::text))`;
      const [last, session] = await Promise.all([
        tx.sessionIntelligence.findFirst({
          where: { sessionId, projectId },
          orderBy: { version: 'desc' },
          select: { version: true },
        }),
        tx.session.findFirst({ where: { id: sessionId, projectId }, select: { eventCount: true } }),
      ]);
      await tx.sessionIntelligence.updateMany({
        where: { sessionId, projectId, status: 'current' },
        data: { status: 'stale' },
      });
      const row = await tx.sessionIntelligence.create({
        data: {
          id: newId(),
          projectId,
          sessionId,
          version: (last?.version ?? 0) + 1,
          status: session && session.eventCount > input.eventCount ? 'stale' : 'current',
          reason: input.reason,
          generator: draft.generator,
          summary: json(draft.summary),
          story: json(draft.story),
          actionItems: json(draft.actionItems),
          eventCount: input.eventCount,
          lastEventAt: input.lastEventAt,
        },
      });
      // A recommendation a person already decided (same kind and title) is not proposed again.
      const decided = await tx.recommendation.findMany({
        where: { sessionId, projectId, status: { not: 'open' } },
        select: { kind: true, title: true },
      });
      const seen = new Set(decided.map((d) => `${d.kind}\u0000${d.title}`));
      const fresh = draft.recommendations.filter((r) => !seen.has(`${r.kind}\u0000${r.title}`));
      const recs =
        fresh.length === 0
          ? []
          : await tx.recommendation.createManyAndReturn({
              data: fresh.map((r) => ({
                id: newId(),
                projectId,
                sessionId,
                intelligenceId: row.id,
                kind: r.kind,
                title: r.title,
                rationale: r.rationale,
                severity: r.severity,
                policy: json({ ...r.policy, enabled: false }),
                evidenceEventIds: r.evidenceEventIds,
              })),
            });
      return intelligenceView(row, recs);
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}

/**
 * Marks the latest intelligence of these sessions `stale` (one UPDATE) because new events arrived
 * for them. Returns the sessions that have any intelligence (current or already stale), i.e. those
 * whose next analysis is a `late_event` one, with whether the session has ended.
 */
export async function markIntelligenceStale(
  db: PrismaClient,
  projectId: string,
  sessionIds: readonly string[],
): Promise<Map<string, { ended: boolean }>> {
  if (sessionIds.length === 0) return new Map();
  const ids = [...sessionIds];
  const rows = await db.$queryRaw<{ session_id: string; ended: boolean }[]>`
    WITH staled AS (
      UPDATE session_intelligence SET status = 'stale'
       WHERE project_id = ${projectId}::uuid AND session_id = ANY(${ids}::uuid[]) AND status = 'current'
      RETURNING session_id)
    SELECT s.id::text AS session_id, s.ended_at IS NOT NULL AS ended FROM sessions s
     WHERE s.project_id = ${projectId}::uuid AND s.id = ANY(${ids}::uuid[])
       AND EXISTS (SELECT 1 FROM session_intelligence i WHERE i.project_id = s.project_id AND i.session_id = s.id)`;
  return new Map(rows.map((r) => [r.session_id, { ended: r.ended }]));
}

/** The latest version of a session's intelligence (or version `version`), or null. */
export async function latestIntelligence(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  version?: number,
): Promise<SessionIntelligenceView | null> {
  const row = await db.sessionIntelligence.findFirst({
    where: { projectId, sessionId, ...(version !== undefined ? { version } : {}) },
    orderBy: { version: 'desc' },
    include: { recommendations: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
  });
  return row ? intelligenceView(row, row.recommendations) : null;
}

/** One entry of {@link intelligenceVersions}: a version without its contents. */
export interface IntelligenceVersionInfo {
  id: string;
  version: number;
  status: string;
  reason: string;
  generator: string;
  eventCount: number;
  lastEventAt: string;
  createdAt: string;
}

/** Every version of a session's intelligence, newest first, without contents. */
export async function intelligenceVersions(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
): Promise<IntelligenceVersionInfo[]> {
  const rows = await db.sessionIntelligence.findMany({
    where: { projectId, sessionId },
    orderBy: { version: 'desc' },
    select: {
      id: true,
      version: true,
      status: true,
      reason: true,
      generator: true,
      eventCount: true,
      lastEventAt: true,
      createdAt: true,
    },
  });
  return rows.map((r) => ({ ...r, lastEventAt: iso(r.lastEventAt), createdAt: iso(r.createdAt) }));
}

/**
 * Recommendations of a project, newest first (`createdAt desc, id desc`), filtered by status, kind
 * and session; keyset paging after `after`. Open recommendations are listed only from the latest
 * version of their session's intelligence (older versions' open ones are superseded); decided ones
 * always. Returns up to `take` rows.
 */
export async function listRecommendations(
  db: PrismaClient,
  projectId: string,
  q: {
    status?: RecommendationStatus;
    kind?: string;
    sessionId?: string;
    after?: { time: Date; id: string };
    take: number;
  },
): Promise<Recommendation[]> {
  const where = [
    Prisma.sql`r.project_id = ${projectId}::uuid`,
    Prisma.sql`(r.status <> 'open' OR r.intelligence_id = (
      SELECT i.id FROM session_intelligence i
       WHERE i.project_id = r.project_id AND i.session_id = r.session_id ORDER BY i.version DESC LIMIT 1))`,
  ];
  if (q.status) where.push(Prisma.sql`r.status = ${q.status}`);
  if (q.kind) where.push(Prisma.sql`r.kind = ${q.kind}`);
  if (q.sessionId) where.push(Prisma.sql`r.session_id = ${q.sessionId}::uuid`);
  if (q.after)
    where.push(
      Prisma.sql`(r.created_at < ${q.after.time} OR (r.created_at = ${q.after.time} AND r.id < ${q.after.id}::uuid))`,
    );
  const ids = await db.$queryRaw<{ id: string }[]>`
    SELECT r.id::text AS id FROM recommendations r WHERE ${Prisma.join(where, ' AND ')}
     ORDER BY r.created_at DESC, r.id DESC LIMIT ${q.take}`;
  if (ids.length === 0) return [];
  const rows = await db.recommendation.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
  const order = new Map(ids.map((r, i) => [r.id, i]));
  return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** Outcome of {@link decideRecommendation}. */
export type RecommendationDecision =
  | { ok: true; recommendation: Recommendation }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'already_decided'; recommendation: Recommendation };

/**
 * Decides an open recommendation once. `dismissed` only records the decision. `accepted` creates
 * the recommendation's policy as a DISABLED draft through the policy admin module (version 1, an
 * audit record; the name gets a ` (recommendation <id prefix>)` suffix when a live policy already
 * has it) and links it (`policyId`). The claim (`status = 'open'` → decided) is atomic, so two
 * concurrent decisions give one winner; when creating the policy fails, the claim is undone and the
 * error rethrown. A `recommendation.accepted` / `recommendation.dismissed` audit record is written.
 */
export async function decideRecommendation(
  db: PrismaClient,
  input: {
    projectId: string;
    id: string;
    status: 'accepted' | 'dismissed';
    actor: Actor;
    comment?: string;
  },
): Promise<RecommendationDecision> {
  const { projectId, id, actor } = input;
  const claimed = await db.recommendation.updateMany({
    where: { id, projectId, status: 'open' },
    data: { status: input.status, decidedBy: actor.actor, decidedAt: new Date() },
  });
  if (claimed.count === 0) {
    const cur = await db.recommendation.findFirst({ where: { id, projectId } });
    return cur
      ? { ok: false, reason: 'already_decided', recommendation: cur }
      : { ok: false, reason: 'not_found' };
  }
  const rec = (await db.recommendation.findFirst({ where: { id, projectId } }))!;
  let policyId: string | null = null;
  if (input.status === 'accepted') {
    try {
      policyId = await createDraftPolicy(db, projectId, actor, rec);
    } catch (err) {
      await db.recommendation.updateMany({
        where: { id, projectId },
        data: { status: 'open', decidedBy: null, decidedAt: null },
      });
      throw err;
    }
  }
  return db.$transaction(async (tx) => {
    const next = policyId ? await tx.recommendation.update({ where: { id }, data: { policyId } }) : rec;
    await recordAudit(tx, projectId, actor, [
      {
        action: `recommendation.${input.status}`,
        entityType: 'recommendation',
        entityId: id,
        before: { status: 'open' },
        after: { status: input.status, policyId, comment: input.comment ?? null },
      },
    ]);
    return { ok: true as const, recommendation: next };
  });
}

async function createDraftPolicy(
  db: PrismaClient,
  projectId: string,
  actor: Actor,
  rec: Recommendation,
): Promise<string> {
  const parsed = PolicyInput.parse(rec.policy);
  const description =
    `${parsed.description ? `${parsed.description}\n\n` : ''}Draft from recommendation ${rec.id} ` +
    `(session ${rec.sessionId}); review and backtest before enabling.`;
  const input: PolicyInput = { ...parsed, enabled: false, description: description.slice(0, 2000) };
  try {
    return (await createPolicy(db, { projectId, actor }, input)).id;
  } catch (err) {
    if (!(err instanceof PolicyNameConflictError)) throw err;
    const name = `${input.name} (recommendation ${rec.id.slice(-8)})`;
    return (await createPolicy(db, { projectId, actor }, { ...input, name })).id;
  }
}
