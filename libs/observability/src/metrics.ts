import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of Agent Warden (prom-client). Every service builds one {@link WardenMetrics}
 * in its `start()` and passes it to the components that count something; standalone builds one for
 * all of them, so `/metrics` serves each series once. Every metric is documented in
 * docs/operations.md "Metrics"; names follow the Prometheus naming conventions (base units: seconds;
 * `_total` on counters) and start with `warden_`, except the default process metrics (`process_*`,
 * `nodejs_*`), which keep the names every Node.js dashboard knows (docs/decisions.md
 * "Prometheus metrics through prom-client").
 *
 * No label takes unbounded values: route templates (never raw paths), methods, status codes,
 * decisions, modes, reason codes of the contract, topic and queue names, partition numbers. No
 * session, run, agent or project id.
 */

/** Buckets of the guard check's evaluation, seconds (sub-millisecond to 2.5 s). */
export const EVALUATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Buckets of HTTP request durations, seconds. */
export const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets of the projector's batch sizes, records. */
export const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];
/** Buckets of the projector's batch durations, seconds. */
export const BATCH_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets of an approval's time to decision, seconds (1 s to a day). */
export const APPROVAL_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];

/** Lag of one partition for one consumer group, records (high watermark − committed offset). */
export interface PartitionLag {
  group: string;
  /** Logical topic name (without `KAFKA_TOPIC_PREFIX`). */
  topic: string;
  partition: number;
  /** Records not yet committed by the group; 0 once it caught up. */
  lag: number;
}

/** Jobs of one queue by state, as `JobQueue.counts` answers them. */
export interface QueueDepth {
  waiting: number;
  active: number;
  failed: number;
  delayed: number;
}

/** Counts of the gateway's evaluation recorder (its `stats()`): records since start, except `buffered`. */
export interface RecorderCounts {
  /** Records held in memory now. */
  buffered: number;
  /** Acknowledged by the event log. */
  published: number;
  /** Refused with 503 because the buffer was full or the recorder closed. */
  rejected: number;
  /** Still unconfirmed when the recorder's `close` hit its deadline. */
  lost: number;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** A value read at scrape time. A source that throws is skipped (its series disappear for that scrape) and counted in `warden_metrics_collect_errors_total`. */
export type Source<T> = () => Promise<T>;

type CollectSource = 'consumer_lag' | 'queue' | 'approvals_pending' | 'evaluation_recorder';

/** The metrics of every component; see docs/operations.md "Metrics" for each one. */
export interface WardenMetrics {
  readonly registry: Registry;
  /** RED metrics of HTTP requests (libs/http `httpMetrics`). */
  readonly http: {
    requests: Counter<'route' | 'method' | 'status'>;
    duration: Histogram<'route' | 'method'>;
  };
  /** The guard check (`POST /v1/guardrails/evaluate`). */
  readonly guard: {
    /** From the handler's start to the decision handed to the response, seconds. */
    evaluationDuration: Histogram<'mode'>;
    decisions: Counter<'effective_decision' | 'policy_decision' | 'mode'>;
  };
  /** Ingest (`POST /v1/events`) and the projector's dead letters. */
  readonly events: {
    accepted: Counter;
    rejected: Counter<'reason'>;
    deadLettered: Counter<'topic' | 'reason'>;
  };
  readonly projector: {
    batchRecords: Histogram<'topic'>;
    batchDuration: Histogram<'topic'>;
  };
  readonly approvals: {
    /** Time from the approval's creation to a person's decision, seconds. */
    decisionSeconds: Histogram<'status'>;
  };
  /** Reports each consumer group's lag per partition at scrape time (`warden_kafka_consumer_lag`). */
  observeConsumerLag(source: Source<PartitionLag[]>): void;
  /** Reports a job queue's depth by state at scrape time (`warden_queue_jobs`). */
  observeQueue(queue: string, source: Source<QueueDepth>): void;
  /** Reports the pending approvals at scrape time (`warden_approvals_pending`). */
  observePendingApprovals(source: Source<number>): void;
  /**
   * Reports the gateway's evaluation recorder at scrape time (`warden_evaluation_records_buffered`,
   * `warden_evaluation_records_total`).
   */
  observeEvaluationRecorder(source: Source<RecorderCounts>): void;
  /**
   * The exposition: reads the scrape-time sources, then renders the registry in the Prometheus text
   * format 0.0.4 (with its content type). Use this rather than `registry.metrics()`, which would
   * show the gauges of the previous scrape.
   */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/**
 * Builds the registry and every metric of {@link WardenMetrics}.
 * @param options.processMetrics also collect prom-client's default process metrics (CPU, memory,
 *   event loop lag, GC, handles); services turn it on, tests usually leave it off (default false)
 * @param options.onCollectError told when a scrape-time source throws (e.g. to log it)
 */
export function createMetrics(
  options: { processMetrics?: boolean; onCollectError?: (source: string, err: unknown) => void } = {},
): WardenMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const collectErrors = new Counter({
    name: 'warden_metrics_collect_errors_total',
    help: 'Scrape-time readings that failed (their series are missing from that scrape), by source.',
    labelNames: ['source'] as const,
    registers,
  });
  const consumerLag = new Gauge({
    name: 'warden_kafka_consumer_lag',
    help: "Records of a partition not yet committed by the consumer group: the partition's high watermark minus the group's committed offset.",
    labelNames: ['group', 'topic', 'partition'] as const,
    registers,
  });
  const queueJobs = new Gauge({
    name: 'warden_queue_jobs',
    help: 'Jobs of a job queue (BullMQ) by state: waiting, active, delayed, failed (failed counts the failed jobs the queue keeps).',
    labelNames: ['queue', 'state'] as const,
    registers,
  });
  // Gauges without labels always show a value once registered (0 after a reset), so they are in
  // the registry only while their source has answered: absent where nothing reports them (the
  // gateway has no pending approvals to count) and in a scrape whose reading failed.
  const approvalsPending = new Gauge({
    name: 'warden_approvals_pending',
    help: 'Approvals waiting for a decision, every project together.',
    registers: [],
  });

  const recorderBuffered = new Gauge({
    name: 'warden_evaluation_records_buffered',
    help: 'Evaluation records the gateway holds in memory, not yet acknowledged by the event log (past its capacity the guard check answers 503).',
    registers: [],
  });
  /** Registers `gauge` (no labels, named `name`) while its value is known, removes it while not. */
  const shown = (gauge: Gauge, name: string, value: number | undefined): void => {
    const present = registry.getSingleMetric(name) !== undefined;
    if (value === undefined) {
      if (present) registry.removeSingleMetric(name);
      return;
    }
    gauge.set(value);
    if (!present) registry.registerMetric(gauge);
  };

  const recorderRecords = new Counter({
    name: 'warden_evaluation_records_total',
    help: "Evaluation records of the gateway's recorder by outcome: published (acknowledged by the event log), rejected (503, buffer full or closed), lost (unconfirmed at shutdown).",
    labelNames: ['outcome'] as const,
    registers,
  });

  const lagSources: Source<PartitionLag[]>[] = [];
  let recorderSource: Source<RecorderCounts> | undefined;
  const queueSources = new Map<string, Source<QueueDepth>>();
  let pendingSource: Source<number> | undefined;

  /** Reads `source`; on failure counts it and tells `onCollectError`, and answers undefined. */
  const attempt = async <T>(source: CollectSource, read: Source<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      collectErrors.inc({ source });
      options.onCollectError?.(source, err);
      return undefined;
    }
  };

  /**
   * Reads every scrape-time source, in parallel, and sets the gauges (reset first: a partition or
   * queue that is gone, or a reading that failed, leaves no stale series).
   */
  const refresh = async (): Promise<void> => {
    const [lags, queues, pending, recorder] = await Promise.all([
      Promise.all(lagSources.map((read) => attempt('consumer_lag', read))),
      Promise.all(
        [...queueSources].map(async ([queue, read]) => [queue, await attempt('queue', read)] as const),
      ),
      pendingSource ? attempt('approvals_pending', pendingSource) : undefined,
      recorderSource ? attempt('evaluation_recorder', recorderSource) : undefined,
    ]);
    consumerLag.reset();
    for (const p of lags.flat())
      if (p) consumerLag.set({ group: p.group, topic: p.topic, partition: String(p.partition) }, p.lag);
    queueJobs.reset();
    for (const [queue, c] of queues)
      if (c) for (const state of QUEUE_STATES) queueJobs.set({ queue, state }, c[state]);
    shown(approvalsPending, 'warden_approvals_pending', pending);
    // The recorder counts since start (monotonic): the counter takes its values.
    shown(recorderBuffered, 'warden_evaluation_records_buffered', recorder?.buffered);
    recorderRecords.reset();
    if (recorder) {
      for (const outcome of ['published', 'rejected', 'lost'] as const)
        recorderRecords.inc({ outcome }, recorder[outcome]);
    }
  };

  let refreshing: Promise<void> | undefined;
  return {
    registry,
    http: {
      requests: new Counter({
        name: 'warden_http_requests_total',
        help: 'HTTP requests answered, by route template, method and status code.',
        labelNames: ['route', 'method', 'status'] as const,
        registers,
      }),
      duration: new Histogram({
        name: 'warden_http_request_duration_seconds',
        help: 'Time from a request reaching the app to its response being sent, by route template and method.',
        labelNames: ['route', 'method'] as const,
        buckets: HTTP_BUCKETS,
        registers,
      }),
    },
    guard: {
      evaluationDuration: new Histogram({
        name: 'warden_guard_evaluation_duration_seconds',
        help: 'Guard check (POST /v1/guardrails/evaluate) from its handler start to the decision answered, by mode.',
        labelNames: ['mode'] as const,
        buckets: EVALUATION_BUCKETS,
        registers,
      }),
      decisions: new Counter({
        name: 'warden_guard_decisions_total',
        help: 'Guard decisions answered, by effective decision (the one the agent must follow), policy decision and mode.',
        labelNames: ['effective_decision', 'policy_decision', 'mode'] as const,
        registers,
      }),
    },
    events: {
      accepted: new Counter({
        name: 'warden_events_accepted_total',
        help: 'Events accepted by POST /v1/events (in the event log when the 202 was sent).',
        registers,
      }),
      rejected: new Counter({
        name: 'warden_events_rejected_total',
        help: 'Events rejected by POST /v1/events, by reason code.',
        labelNames: ['reason'] as const,
        registers,
      }),
      deadLettered: new Counter({
        name: 'warden_events_dead_lettered_total',
        help: 'Records the projector could never store and published on agent-events.dlq, by source topic and reason code.',
        labelNames: ['topic', 'reason'] as const,
        registers,
      }),
    },
    projector: {
      batchRecords: new Histogram({
        name: 'warden_projector_batch_records',
        help: 'Records per batch handled by the projector (one topic-partition each), by topic.',
        labelNames: ['topic'] as const,
        buckets: BATCH_SIZE_BUCKETS,
        registers,
      }),
      batchDuration: new Histogram({
        name: 'warden_projector_batch_duration_seconds',
        help: 'Time to project one batch (decode, write, dead-letter, schedule readiness), by topic.',
        labelNames: ['topic'] as const,
        buckets: BATCH_DURATION_BUCKETS,
        registers,
      }),
    },
    approvals: {
      decisionSeconds: new Histogram({
        name: 'warden_approval_decision_seconds',
        help: 'Time from an approval being requested to a person deciding it, by the decided status.',
        labelNames: ['status'] as const,
        buckets: APPROVAL_BUCKETS,
        registers,
      }),
    },
    observeConsumerLag: (source) => void lagSources.push(source),
    observeQueue: (queue, source) => void queueSources.set(queue, source),
    observePendingApprovals: (source) => {
      pendingSource = source;
    },
    observeEvaluationRecorder: (source) => {
      recorderSource = source;
    },
    scrape: async () => {
      // Scrapes at the same time share one reading (no burst of Kafka or database requests).
      refreshing ??= refresh().finally(() => (refreshing = undefined));
      await refreshing;
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
