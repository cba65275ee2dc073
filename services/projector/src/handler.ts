import { TOPICS, type EvaluationRecord, type PriceTable } from '@agent-warden/contracts';
import type { BatchHandler, BusBatch, EventBus } from '@agent-warden/bus';
import {
  agentSeenKey,
  emptyWriteResult,
  pingDatabase,
  touchAgents,
  writeBatch,
  type PrismaClient,
  type ProjectedEvent,
  type WriteResult,
} from '@agent-warden/db';
import type { Logger, WardenMetrics } from '@agent-warden/observability';
import { deadLetter, decodeRecord, type Decoded } from './decode';

type Dead = Extract<Decoded, { kind: 'dead' }>;

/**
 * Called after each durable batch write with what it stored and the batch's decoded events (e.g. to
 * schedule session readiness). An error makes the bus retry the batch (the write is idempotent).
 */
export type AfterWrite = (result: WriteResult, events: readonly ProjectedEvent[]) => Promise<void> | void;

/**
 * The projector's batch handler: decode every record, store the batch in one idempotent
 * transaction, dead-letter what can never be stored, and resolve only when both are durable (the
 * bus commits offsets after that). When the batch write fails while the database is reachable,
 * records are written one by one to isolate the poison ones; when the database is unreachable the
 * error propagates and the batch is retried. With `metrics`, each batch handled to the end is
 * counted (`warden_projector_batch_records`, `warden_projector_batch_duration_seconds`: a retried
 * batch is counted once, with the time of its successful try) and each dead letter
 * (`warden_events_dead_lettered_total`).
 */
export function createProjectionHandler(deps: {
  db: PrismaClient;
  bus: EventBus;
  logger: Logger;
  afterWrite?: AfterWrite;
  /** Prices of LLM calls (docs/architecture.md#llm-calls); default: contracts `DEFAULT_LLM_PRICES`. */
  prices?: PriceTable;
  metrics?: WardenMetrics;
}): BatchHandler {
  const { db, bus, logger, metrics } = deps;
  const options = { prices: deps.prices };

  async function writeIsolating(
    events: Extract<Decoded, { kind: 'event' }>[],
    evaluations: Extract<Decoded, { kind: 'evaluation' }>[],
    dead: Dead[],
  ): Promise<WriteResult> {
    const toEvents = (xs: typeof events): ProjectedEvent[] =>
      xs.map((x) => ({ projectId: x.projectId, event: x.event }));
    const toEvals = (xs: typeof evaluations): EvaluationRecord[] => xs.map((x) => x.evaluation);
    try {
      return await writeBatch(db, toEvents(events), toEvals(evaluations), options);
    } catch (err) {
      if (!(await pingDatabase(db))) throw err;
      logger.warn(
        { err, events: events.length, evaluations: evaluations.length },
        'batch write failed; isolating records',
      );
    }
    const total: WriteResult = emptyWriteResult();
    for (const one of [...events, ...evaluations]) {
      try {
        const r =
          one.kind === 'event'
            ? await writeBatch(db, toEvents([one]), [], options)
            : await writeBatch(db, [], toEvals([one]), options);
        total.eventsInserted += r.eventsInserted;
        total.evaluationsInserted += r.evaluationsInserted;
        total.scoresInserted += r.scoresInserted;
        total.llmCallsInserted += r.llmCallsInserted;
        total.sessions.push(...r.sessions);
        total.evaluatedSessions.push(...r.evaluatedSessions);
      } catch (err) {
        if (!(await pingDatabase(db))) throw err;
        dead.push({
          kind: 'dead',
          record: one.record,
          code: 'storage_rejected',
          reason: (err as Error).message.slice(0, 2000),
        });
      }
    }
    total.sessions = [
      ...new Map(total.sessions.map((s) => [agentSeenKey(s.projectId, s.sessionId), s])).values(),
    ];
    return total;
  }

  return async (batch: BusBatch) => {
    const started = performance.now();
    const decoded = batch.records.map(decodeRecord);
    const dead = decoded.filter((d): d is Dead => d.kind === 'dead');
    const events = decoded.filter((d): d is Extract<Decoded, { kind: 'event' }> => d.kind === 'event');
    const evaluations = decoded.filter(
      (d): d is Extract<Decoded, { kind: 'evaluation' }> => d.kind === 'evaluation',
    );

    const result = await writeIsolating(events, evaluations, dead);

    if (dead.length > 0) {
      await bus.publish(
        TOPICS.agentEventsDeadLetter,
        dead.map((d) => ({ key: d.record.key ?? 'unknown', value: deadLetter(batch.topic, d) })),
      );
      for (const d of dead)
        logger.warn(
          {
            topic: batch.topic,
            partition: d.record.partition,
            offset: d.record.offset,
            code: d.code,
            reason: d.reason,
          },
          'record dead-lettered',
        );
    }

    const lastSeen = new Map<string, Date>();
    for (const e of events) {
      const t = new Date(e.event.time);
      const key = agentSeenKey(e.projectId, e.event.agentId);
      const prev = lastSeen.get(key);
      if (!prev || t > prev) lastSeen.set(key, t);
    }
    await touchAgents(db, lastSeen).catch((err) => logger.warn({ err }, 'agent last-seen update failed'));

    logger.debug(
      {
        topic: batch.topic,
        partition: batch.partition,
        records: batch.records.length,
        ...result,
        dead: dead.length,
      },
      'batch projected',
    );
    if (deps.afterWrite && (result.eventsInserted > 0 || result.evaluationsInserted > 0))
      await deps.afterWrite(
        result,
        events.map((x) => ({ projectId: x.projectId, event: x.event })),
      );
    if (metrics) {
      for (const d of dead) metrics.events.deadLettered.inc({ topic: batch.topic, reason: d.code });
      metrics.projector.batchRecords.observe({ topic: batch.topic }, batch.records.length);
      metrics.projector.batchDuration.observe({ topic: batch.topic }, (performance.now() - started) / 1000);
    }
  };
}
