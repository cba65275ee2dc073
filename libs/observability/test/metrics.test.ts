import { createMetrics, type PartitionLag } from '../src/metrics';
import { parseExposition, samplesOf, total } from '../../../test/support/prometheus';

describe('createMetrics', () => {
  test('every metric of ours is named warden_*, counters end in _total, durations are in seconds', async () => {
    const m = createMetrics();
    const { contentType, body } = await m.scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const { types } = parseExposition(body);
    expect(types.size).toBeGreaterThanOrEqual(13);
    for (const [name, type] of types) {
      expect(name).toMatch(/^warden_[a-z_]+$/);
      if (type === 'COUNTER') expect(name).toMatch(/_total$/);
      if (name.includes('duration')) expect(name).toMatch(/_seconds$/);
    }
  });

  test('process metrics only when asked', async () => {
    const without = parseExposition((await createMetrics().scrape()).body);
    expect(without.types.has('process_cpu_seconds_total')).toBe(false);
    const withThem = parseExposition((await createMetrics({ processMetrics: true }).scrape()).body);
    expect(withThem.types.get('process_cpu_seconds_total')).toBe('COUNTER');
    expect(withThem.types.get('nodejs_eventloop_lag_seconds')).toBe('GAUGE');
  });

  test('counters and histograms keep their labels apart', async () => {
    const m = createMetrics();
    m.guard.decisions.inc({ effective_decision: 'block', policy_decision: 'block', mode: 'enforce' });
    m.guard.decisions.inc({ effective_decision: 'warn', policy_decision: 'block', mode: 'monitor' }, 2);
    m.guard.evaluationDuration.observe({ mode: 'enforce' }, 0.002);
    m.guard.evaluationDuration.observe({ mode: 'monitor' }, 0.2);
    m.guard.evaluationDuration.observe({ mode: 'monitor' }, 0.3);
    const e = parseExposition((await m.scrape()).body);
    expect(total(e, 'warden_guard_decisions_total', { policy_decision: 'block' })).toBe(3);
    expect(total(e, 'warden_guard_decisions_total', { mode: 'monitor', effective_decision: 'warn' })).toBe(2);
    expect(total(e, 'warden_guard_evaluation_duration_seconds_count', { mode: 'monitor' })).toBe(2);
    expect(total(e, 'warden_guard_evaluation_duration_seconds_sum', { mode: 'monitor' })).toBeCloseTo(0.5);
    expect(
      total(e, 'warden_guard_evaluation_duration_seconds_bucket', { mode: 'enforce', le: '0.0025' }),
    ).toBe(1);
    expect(
      total(e, 'warden_guard_evaluation_duration_seconds_bucket', { mode: 'enforce', le: '0.001' }),
    ).toBe(0);
  });

  test('scrape-time gauges read their sources on every scrape, and drop what is gone', async () => {
    const m = createMetrics();
    let lags: PartitionLag[] = [
      { group: 'g', topic: 'agent-events', partition: 0, lag: 5 },
      { group: 'g', topic: 'agent-events', partition: 1, lag: 0 },
    ];
    let pending = 3;
    m.observeConsumerLag(async () => lags);
    m.observeQueue('session-ready', async () => ({
      waiting: 1,
      active: 2,
      delayed: 4,
      failed: 7,
      completed: 9,
    }));
    m.observePendingApprovals(async () => pending);

    let e = parseExposition((await m.scrape()).body);
    expect(samplesOf(e, 'warden_kafka_consumer_lag')).toEqual([
      {
        name: 'warden_kafka_consumer_lag',
        labels: { group: 'g', topic: 'agent-events', partition: '0' },
        value: 5,
      },
      {
        name: 'warden_kafka_consumer_lag',
        labels: { group: 'g', topic: 'agent-events', partition: '1' },
        value: 0,
      },
    ]);
    expect(
      Object.fromEntries(samplesOf(e, 'warden_queue_jobs').map((s) => [s.labels.state, s.value])),
    ).toEqual({ waiting: 1, active: 2, delayed: 4, failed: 7 });
    expect(total(e, 'warden_approvals_pending')).toBe(3);

    lags = [{ group: 'g', topic: 'agent-events', partition: 0, lag: 0 }];
    pending = 0;
    e = parseExposition((await m.scrape()).body);
    expect(samplesOf(e, 'warden_kafka_consumer_lag').map((s) => [s.labels.partition, s.value])).toEqual([
      ['0', 0],
    ]);
    expect(total(e, 'warden_approvals_pending')).toBe(0);
  });

  test('a failing source leaves its series out, is counted and reported, and the scrape still answers', async () => {
    const errors: string[] = [];
    const m = createMetrics({ onCollectError: (source) => errors.push(source) });
    let fail = false;
    m.observeConsumerLag(async () => {
      if (fail) throw new Error('broker unreachable');
      return [{ group: 'g', topic: 'agent-events', partition: 0, lag: 2 }];
    });
    let pendingFails = false;
    m.observePendingApprovals(async () => {
      if (pendingFails) throw new Error('database unreachable');
      return 1;
    });
    let e = parseExposition((await m.scrape()).body);
    expect(total(e, 'warden_kafka_consumer_lag')).toBe(2);

    fail = true;
    e = parseExposition((await m.scrape()).body);
    expect(samplesOf(e, 'warden_kafka_consumer_lag')).toEqual([]);
    expect(total(e, 'warden_metrics_collect_errors_total', { source: 'consumer_lag' })).toBe(1);
    expect(total(e, 'warden_approvals_pending')).toBe(1);
    expect(errors).toEqual(['consumer_lag']);

    // A gauge without labels is left out too, not shown as 0, and comes back with its next reading.
    pendingFails = true;
    e = parseExposition((await m.scrape()).body);
    expect(e.types.has('warden_approvals_pending')).toBe(false);
    expect(total(e, 'warden_metrics_collect_errors_total', { source: 'approvals_pending' })).toBe(1);
    pendingFails = false;
    e = parseExposition((await m.scrape()).body);
    expect(samplesOf(e, 'warden_approvals_pending').map((s) => s.value)).toEqual([1]);
  });

  test('a gauge nobody reports is not exposed (no pending approvals in a gateway)', async () => {
    const e = parseExposition((await createMetrics().scrape()).body);
    expect(e.types.has('warden_approvals_pending')).toBe(false);
    expect(e.types.has('warden_evaluation_records_buffered')).toBe(false);
    expect(e.types.get('warden_kafka_consumer_lag')).toBe('GAUGE');
    expect(samplesOf(e, 'warden_kafka_consumer_lag')).toEqual([]);
  });

  test("the evaluation recorder's counts become a gauge and a counter by outcome", async () => {
    const m = createMetrics();
    const counts = { buffered: 3, published: 10, rejected: 1, lost: 0 };
    m.observeEvaluationRecorder(async () => counts);
    let e = parseExposition((await m.scrape()).body);
    expect(e.types.get('warden_evaluation_records_total')).toBe('COUNTER');
    expect(total(e, 'warden_evaluation_records_buffered')).toBe(3);
    expect(
      Object.fromEntries(
        samplesOf(e, 'warden_evaluation_records_total').map((s) => [s.labels.outcome, s.value]),
      ),
    ).toEqual({ published: 10, rejected: 1, lost: 0 });
    counts.published = 25;
    counts.buffered = 0;
    e = parseExposition((await m.scrape()).body);
    expect(total(e, 'warden_evaluation_records_total', { outcome: 'published' })).toBe(25);
    expect(total(e, 'warden_evaluation_records_buffered')).toBe(0);
  });

  test('scrapes at the same time share one reading of the sources', async () => {
    const m = createMetrics();
    let reads = 0;
    m.observePendingApprovals(async () => {
      reads++;
      await new Promise((r) => setTimeout(r, 20));
      return 1;
    });
    await Promise.all([m.scrape(), m.scrape(), m.scrape()]);
    expect(reads).toBe(1);
    await m.scrape();
    expect(reads).toBe(2);
  });

  test('two registries do not share series (standalone and tests build their own)', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.events.accepted.inc(4);
    expect(total(parseExposition((await a.scrape()).body), 'warden_events_accepted_total')).toBe(4);
    expect(total(parseExposition((await b.scrape()).body), 'warden_events_accepted_total')).toBe(0);
  });
});
