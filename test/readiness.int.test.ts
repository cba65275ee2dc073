import { bootstrapProject } from '@agent-warden/api';
import { InMemoryBus, type Subscription } from '@agent-warden/bus';
import {
  AgentEvent,
  evaluationMessage,
  newId,
  TOPICS,
  toCloudEvent,
  type EvaluationRecord,
  type EventType,
} from '@agent-warden/contracts';
import type { AgentEvent as AgentEventT } from '@agent-warden/contracts';
import { createPrisma, type PrismaClient } from '@agent-warden/db';
import { startIntelligenceWorker } from '@agent-warden/intelligence-service';
import { silentLogger } from '@agent-warden/observability';
import { readinessAfterWrite, startProjection } from '@agent-warden/projector';
import { BullMqJobQueue, type Processor } from '@agent-warden/queue';
import { createTestDatabase, type TestDatabase } from './support/database';
import { randomSuffix, requireEnv } from './support/env';
import { waitFor } from './support/http';

/**
 * Session readiness with the real job queue (BullMQ on Redis) and PostgreSQL: the projector's
 * handler (fed through the in-process bus, one batch per event) schedules debounced `session-ready`
 * jobs and the intelligence worker runs them. Quiet period 4 s, ended delay 300 ms.
 */
describe('readiness: debounced session-ready jobs on BullMQ', () => {
  const QUIET_MS = 4000;
  let db: TestDatabase;
  let prisma: PrismaClient;
  let queue: BullMqJobQueue;
  let bus: InMemoryBus;
  let projection: Subscription;
  let worker: Processor;
  let projectId: string;
  const agentId = newId();
  const agentVersionId = newId();

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = createPrisma(db.url, { poolMax: 4 });
    projectId = (
      await bootstrapProject(prisma, {
        initApiKey: `aw_test_${randomSuffix()}${randomSuffix()}${randomSuffix()}`,
      })
    ).projectId;
    // The agent and version the events name (the database refuses events of unknown ones).
    await prisma.agent.create({ data: { id: agentId, projectId, key: 'readiness-agent' } });
    await prisma.agentVersion.create({ data: { id: agentVersionId, projectId, agentId, version: '1' } });
    const logger = silentLogger();
    queue = new BullMqJobQueue({ redisUrl: requireEnv('REDIS_URL'), prefix: `q${randomSuffix()}` });
    worker = await startIntelligenceWorker({
      db: prisma,
      queue,
      logger,
      config: {
        WARDEN_INTELLIGENCE_CONCURRENCY: 2,
        WARDEN_INTELLIGENCE_ATTEMPTS: 2,
        WARDEN_INTELLIGENCE_BACKOFF_MS: 100,
      },
    });
    bus = new InMemoryBus(logger);
    projection = await startProjection({
      db: prisma,
      bus,
      logger,
      groupId: 'projector',
      afterWrite: readinessAfterWrite({
        db: prisma,
        queue,
        logger,
        delays: { quietMs: QUIET_MS, endedDelayMs: 300 },
      }),
    });
  }, 60_000);

  afterAll(async () => {
    await projection?.stop();
    await bus?.close();
    await worker?.close();
    await queue?.close();
    await prisma?.$disconnect();
    await db?.drop();
  }, 60_000);

  /** Makes event number `sequence` of `sessionId` (data valid for its type). */
  function event(
    sessionId: string,
    sequence: number,
    type: EventType,
    data: object,
    runId?: string,
  ): AgentEventT {
    return AgentEvent.parse({
      id: newId(),
      type,
      time: new Date(Date.now() + sequence).toISOString(),
      sessionId,
      ...(runId ? { runId } : {}),
      agentId,
      agentVersionId,
      sequence,
      data,
    }) as AgentEventT;
  }

  /** Publishes each event on its own (one projected batch each), in order. */
  async function publishOneByOne(events: AgentEventT[]): Promise<void> {
    for (const e of events)
      await bus.publish(TOPICS.agentEvents, [{ key: e.sessionId, value: toCloudEvent(projectId, e) }]);
  }

  /** A session with one run of `tools` tool calls; ended unless `ended: false`. */
  function session(sessionId: string, tools: number, opts: { ended?: boolean; runCompleted?: boolean } = {}) {
    const runId = newId();
    let seq = 0;
    const out: AgentEventT[] = [
      event(sessionId, ++seq, 'agent.session.started', { inputSummary: 'book a flight' }),
      event(sessionId, ++seq, 'agent.run.started', { name: 'main', inputSummary: 'book a flight' }, runId),
    ];
    for (let i = 0; i < tools; i++) {
      const toolCallId = newId();
      out.push(
        event(
          sessionId,
          ++seq,
          'agent.tool.started',
          { toolCallId, toolName: 'search', arguments: { q: i } },
          runId,
        ),
      );
      out.push(
        event(
          sessionId,
          ++seq,
          'agent.tool.completed',
          { toolCallId, toolName: 'search', result: 'ok', durationMs: 5 },
          runId,
        ),
      );
    }
    if (opts.runCompleted !== false)
      out.push(
        event(
          sessionId,
          ++seq,
          'agent.run.completed',
          { status: 'succeeded', outputSummary: 'booked' },
          runId,
        ),
      );
    if (opts.ended !== false)
      out.push(event(sessionId, seq + 1, 'agent.session.ended', { status: 'completed' }));
    return out;
  }

  const versions = (sessionId: string) =>
    prisma.sessionIntelligence.findMany({ where: { sessionId }, orderBy: { version: 'asc' } });

  test('many events of one session in quick succession make one job and one version; a late event makes version 2', async () => {
    const sessionId = newId();
    const events = session(sessionId, 12); // 28 events, 28 batches, 28 enqueues with one debounce key
    await publishOneByOne(events);

    const [v1] = await waitFor(async () => {
      const vs = await versions(sessionId);
      return vs.length > 0 && vs;
    }, 30_000);
    expect(v1).toMatchObject({ version: 1, reason: 'ended', status: 'current', eventCount: events.length });
    // The job writes the version before BullMQ marks it completed: wait until it is no longer active.
    const counts = await waitFor(async () => {
      const c = await queue.counts('session-ready');
      return c.active === 0 && c;
    }, 30_000);
    // One job ran; the earlier `quiet` jobs of the burst were replaced, none is left waiting.
    expect(counts).toMatchObject({ completed: 1, failed: 0, delayed: 0, waiting: 0, active: 0 });
    expect(await versions(sessionId)).toHaveLength(1);

    // A late event: the version becomes stale at once, and a new version follows.
    await publishOneByOne([event(sessionId, events.length + 1, 'agent.custom', { name: 'late' })]);
    const all = await waitFor(async () => {
      const vs = await versions(sessionId);
      return vs.length === 2 && vs;
    }, 30_000);
    expect(all.map((v) => [v.version, v.status, v.reason, v.eventCount])).toEqual([
      [1, 'stale', 'ended', events.length],
      [2, 'current', 'late_event', events.length + 1],
    ]);
    const after = await waitFor(async () => {
      const c = await queue.counts('session-ready');
      return c.active === 0 && c;
    }, 30_000);
    expect(after).toMatchObject({ completed: 2, failed: 0, delayed: 0 });
  }, 60_000);

  test('a guardrail evaluation stored after the analysis makes it stale, and a new version follows (reason late_event)', async () => {
    const sessionId = newId();
    const events = session(sessionId, 2);
    await publishOneByOne(events);
    await waitFor(async () => (await versions(sessionId)).length === 1, 30_000);

    const evaluationId = newId();
    const evaluatedAt = new Date().toISOString();
    const record: EvaluationRecord = {
      evaluationId,
      projectId,
      agentId,
      agentVersionId,
      sessionId,
      runId: null,
      toolCallId: null,
      mode: 'monitor',
      policyDecision: 'block',
      effectiveDecision: 'allow',
      matchedGuardrails: [
        {
          policyId: newId(),
          name: 'no searches',
          version: 1,
          decision: 'block',
          reason: 'tool.name = search',
        },
      ],
      wouldBlock: true,
      wouldRequireApproval: false,
      dryRun: false,
      approvalId: null,
      input: { tool: { name: 'search' }, arguments: { q: 'late' } },
      evaluatedAt,
    };
    await bus.publish(TOPICS.guardrailEvaluations, [evaluationMessage(record)]);
    const all = await waitFor(async () => {
      const vs = await versions(sessionId);
      return vs.length === 2 && vs[1]!.status === 'current' && vs;
    }, 30_000);
    expect(all.map((v) => [v.version, v.status, v.reason])).toEqual([
      [1, 'stale', 'ended'],
      [2, 'current', 'late_event'],
    ]);
    // The evaluation is in the stored session the second analysis read (none was there before).
    expect(await prisma.guardrailEvaluation.count({ where: { sessionId } })).toBe(1);
  }, 60_000);

  test('a session that falls quiet after its run completed is analysed (reason quiet); one with a run still running is not', async () => {
    const quiet = newId();
    const running = newId();
    const before = (await queue.counts('session-ready')).completed;
    await publishOneByOne([
      ...session(quiet, 2, { ended: false }),
      ...session(running, 2, { ended: false, runCompleted: false }),
    ]);
    // Both jobs run after the quiet period; only the session with no running run is ready.
    await waitFor(async () => (await queue.counts('session-ready')).completed === before + 2, 30_000);
    expect((await versions(quiet)).map((v) => [v.version, v.reason, v.status])).toEqual([
      [1, 'quiet', 'current'],
    ]);
    expect(await versions(running)).toEqual([]);
  }, 60_000);
});
