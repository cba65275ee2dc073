import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WardenClient } from '@agent-warden/client';
import { KafkaConsumerLag } from '@agent-warden/bus';
import { newId, QUEUES, TOPICS } from '@agent-warden/contracts';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORY_FILES } from './support/env';
import { call, waitFor } from './support/http';
import { scrape, samplesOf, total, type Exposition } from './support/prometheus';
import { startStandalone, type StandaloneProcess } from './support/standalone';
import { startTestStack, type TestStack } from './support/stack';

/** A port nobody listens on right now (for the projector's metrics server). */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Sum of `name` per value of `label` (e.g. decisions per `effective_decision`), zeros left out. */
function byLabel(e: Exposition, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samplesOf(e, name))
    if (s.value > 0) out[s.labels[label]!] = (out[s.labels[label]!] ?? 0) + s.value;
  return out;
}

const diff = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v !== 0),
  );

/**
 * `/metrics` on the real stack (docs/operations.md "Metrics"): the gateway, the api and the
 * projector (its own process, with its metrics server) are scraped before and after a replay of
 * real trajectories and an approval decided through the api; counters move by what the replay
 * reports, the evaluate histogram has samples, and the projector's consumer lag returns to 0.
 */
describe('metrics: the stack scraped during a replay', () => {
  let stack: TestStack;
  let projectorMetrics: string;
  const clients: WardenClient[] = [];
  /** A registered agent (through the client) and its version ids. */
  const agentOf = async (key: string) => {
    const client = new WardenClient({ baseUrl: stack.gatewayUrl, apiKey: stack.apiKey, agent: { key } });
    clients.push(client);
    await client.ready();
    return { agentId: client.agentId!, agentVersionId: client.agentVersionId! };
  };

  beforeAll(async () => {
    const port = await freePort();
    stack = await startTestStack({ projector: false });
    await stack.startProjector({ WARDEN_METRICS_PORT: String(port) });
    projectorMetrics = `http://127.0.0.1:${port}/metrics`;
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.shutdown();
    await stack?.stop();
  }, 60_000);

  test('every service answers /metrics without an API key, in the text format, and leaks no secret', async () => {
    for (const url of [`${stack.gatewayUrl}/metrics`, `${stack.apiUrl}/metrics`, projectorMetrics]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).not.toContain(stack.apiKey);
      expect(text).not.toContain(stack.projectId);
      const e = await scrape(url);
      expect(e.types.get('process_cpu_seconds_total')).toBe('COUNTER');
      expect([...e.types.keys()].filter((n) => n.startsWith('warden_')).length).toBeGreaterThanOrEqual(14);
    }
  });

  test('a replay moves events accepted and decisions by what it reports, and fills the evaluate histogram', async () => {
    const gw = `${stack.gatewayUrl}/metrics`;
    const before = await scrape(gw);
    const summary = await replayFiles({
      files: [TRAJECTORY_FILES[1]!],
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      limit: 12,
      concurrency: 4,
      statsUrl: stack.apiUrl,
    });
    expect(summary.missing).toBe(0);
    expect(summary.events_sent).toBeGreaterThan(12 * 4);
    const after = await scrape(gw);

    const accepted =
      total(after, 'warden_events_accepted_total') - total(before, 'warden_events_accepted_total');
    const decided = diff(
      byLabel(after, 'warden_guard_decisions_total', 'effective_decision'),
      byLabel(before, 'warden_guard_decisions_total', 'effective_decision'),
    );
    const evaluations =
      total(after, 'warden_guard_evaluation_duration_seconds_count') -
      total(before, 'warden_guard_evaluation_duration_seconds_count');
    if (summary.client.retries === 0) {
      // No request was sent twice: the counters equal what the replay counted.
      expect(accepted).toBe(summary.events_sent);
      expect(decided).toEqual(summary.decisions);
    } else {
      expect(accepted).toBeGreaterThanOrEqual(summary.events_sent);
    }
    const calls = Object.values(summary.decisions).reduce((a, b) => a + b, 0);
    expect(calls).toBeGreaterThan(0);
    expect(evaluations).toBeGreaterThanOrEqual(calls);
    expect(total(after, 'warden_guard_evaluation_duration_seconds_sum', { mode: 'monitor' })).toBeGreaterThan(
      0,
    );
    expect(total(after, 'warden_events_rejected_total')).toBe(0);
    // RED metrics by route template.
    expect(
      total(after, 'warden_http_requests_total', { route: '/v1/events', method: 'POST', status: '202' }),
    ).toBeGreaterThan(0);
    expect(
      total(after, 'warden_http_request_duration_seconds_count', { route: '/v1/guardrails/evaluate' }),
    ).toBeGreaterThanOrEqual(calls);

    // The projector stored everything: its group's lag is 0 on every partition of both topics once
    // the offsets are committed, and its batches hold at least every record replayed.
    const [row] = await stack.prisma.$queryRaw<{ events: bigint; evaluations: bigint }[]>`
      SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM guardrail_evaluations) AS evaluations`;
    expect(Number(row!.events)).toBe(summary.events_sent);
    // Every stored evaluation was published by the gateway's recorder, none refused or lost.
    const recorder = await scrape(gw);
    expect(
      total(recorder, 'warden_evaluation_records_total', { outcome: 'published' }),
    ).toBeGreaterThanOrEqual(Number(row!.evaluations));
    expect(total(recorder, 'warden_evaluation_records_total', { outcome: 'rejected' })).toBe(0);
    expect(total(recorder, 'warden_evaluation_records_total', { outcome: 'lost' })).toBe(0);
    const caughtUp = await waitFor(
      async () => {
        const e = await scrape(projectorMetrics);
        const lag = samplesOf(e, 'warden_kafka_consumer_lag');
        return lag.length === 6 && lag.every((s) => s.value === 0) ? e : undefined;
      },
      60_000,
      250,
    );
    expect(
      samplesOf(caughtUp, 'warden_kafka_consumer_lag')
        .map((s) => `${s.labels.topic}/${s.labels.partition}`)
        .sort(),
    ).toEqual([
      'agent-events/0',
      'agent-events/1',
      'agent-events/2',
      'guardrail-evaluations/0',
      'guardrail-evaluations/1',
      'guardrail-evaluations/2',
    ]);
    expect(
      total(caughtUp, 'warden_projector_batch_records_sum', { topic: 'agent-events' }),
    ).toBeGreaterThanOrEqual(summary.events_sent);
    expect(
      total(caughtUp, 'warden_projector_batch_records_sum', { topic: 'guardrail-evaluations' }),
    ).toBeGreaterThanOrEqual(Number(row!.evaluations));
    expect(total(caughtUp, 'warden_projector_batch_duration_seconds_count')).toBeGreaterThan(0);
    expect(total(caughtUp, 'warden_events_dead_lettered_total')).toBe(0);
  }, 300_000);

  test('the lag counts what the projector has not committed while it is down, and returns to 0', async () => {
    const agent = await agentOf('lag-agent');
    await stack.killProjectors();
    const sessionId = newId();
    const events = Array.from({ length: 5 }, (_, i) => ({
      id: newId(),
      type: 'agent.custom',
      time: new Date().toISOString(),
      sessionId,
      agentId: agent.agentId,
      agentVersionId: agent.agentVersionId,
      sequence: i + 1,
      data: { name: `probe ${i}` },
    }));
    const r = await call(stack.gatewayUrl, 'POST', '/v1/events', { apiKey: stack.apiKey, body: { events } });
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(5);
    // Nobody serves the projector's metrics now: read its group's lag as its collector does.
    const reader = new KafkaConsumerLag({
      brokers: stack.env.KAFKA_BROKERS!.split(','),
      clientId: 'metrics-test',
      topicPrefix: stack.topicPrefix,
      groupId: stack.env.WARDEN_PROJECTOR_GROUP!,
      topics: [TOPICS.agentEvents],
    });
    try {
      const lag = await reader.read();
      expect(lag.map((p) => p.partition).sort()).toEqual([0, 1, 2]);
      expect(lag.reduce((sum, p) => sum + p.lag, 0)).toBeGreaterThanOrEqual(5);
    } finally {
      await reader.close();
    }

    const port = Number(new URL(projectorMetrics).port);
    await stack.startProjector({ WARDEN_METRICS_PORT: String(port) });
    // The new process serves on the same port; right after its start, the lag may still show the 5.
    const e = await waitFor(
      async () => {
        const x = await scrape(`http://127.0.0.1:${port}/metrics`);
        return total(x, 'warden_kafka_consumer_lag', { topic: 'agent-events' }) === 0 ? x : undefined;
      },
      60_000,
      250,
    );
    expect(samplesOf(e, 'warden_kafka_consumer_lag', { topic: 'agent-events' })).toHaveLength(3);
    const [row] = await stack.prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM events WHERE session_id = ${sessionId}`;
    expect(Number(row!.n)).toBe(5);
  }, 180_000);

  test('approvals pending and the time to decision, through the api', async () => {
    const api = `${stack.apiUrl}/metrics`;
    const before = await scrape(api);
    expect(total(before, 'warden_approvals_pending')).toBe(0);
    const agent = await agentOf('approval-agent');
    await stack.prisma.policy.create({
      data: {
        id: newId(),
        projectId: stack.projectId,
        name: 'approve deploys',
        decision: 'require_approval',
        match: { field: 'tool.name', op: 'eq', value: 'deploy' },
        approval: { timeoutSeconds: 600, onTimeout: 'deny' },
      },
    });
    const evaluate = () =>
      call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
        apiKey: stack.apiKey,
        body: {
          agentId: agent.agentId,
          mode: 'enforce',
          tool: { name: 'deploy' },
          arguments: { env: 'prod' },
        },
      });
    const held = await waitFor(async () => {
      const x = await evaluate();
      return x.body.policyDecision === 'require_approval' ? x : undefined;
    });
    const id = held.body.approval.id as string;
    const pending = await scrape(api);
    expect(total(pending, 'warden_approvals_pending')).toBe(1);
    const gw = await scrape(`${stack.gatewayUrl}/metrics`);
    expect(
      total(gw, 'warden_guard_decisions_total', {
        effective_decision: 'require_approval',
        policy_decision: 'require_approval',
        mode: 'enforce',
      }),
    ).toBe(1);

    const d = await call(stack.apiUrl, 'POST', `/v1/approvals/${id}/decision`, {
      apiKey: stack.apiKey,
      body: { status: 'denied', comment: 'not today' },
    });
    expect(d.status).toBe(200);
    const after = await scrape(api);
    expect(total(after, 'warden_approvals_pending')).toBe(0);
    expect(total(after, 'warden_approval_decision_seconds_count', { status: 'denied' })).toBe(1);
    expect(total(after, 'warden_approval_decision_seconds_bucket', { status: 'denied', le: '+Inf' })).toBe(1);
    const row = await stack.prisma.approval.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe('denied');
    expect(total(after, 'warden_approval_decision_seconds_sum', { status: 'denied' })).toBeCloseTo(
      (row.decidedAt!.getTime() - row.createdAt.getTime()) / 1000,
      2,
    );
  }, 60_000);

  test('the intelligence worker reports the depth of the job queue by state, as the queue holds it', async () => {
    // A job due in two minutes stays delayed for the whole test: a state with a known count.
    await stack.queue.enqueue(
      QUEUES.sessionReady,
      { projectId: stack.projectId, sessionId: newId(), reason: 'quiet' },
      { jobId: `metrics-delayed-${newId()}`, delayMs: 120_000 },
    );
    const port = await freePort();
    await stack.startIntelligence({ WARDEN_METRICS_PORT: String(port) });
    const url = `http://127.0.0.1:${port}/metrics`;
    // The sessions the replay left ready are analysed; then nothing waits or runs.
    const e = await waitFor(
      async () => {
        const x = await scrape(url);
        const state = (s: string) => total(x, 'warden_queue_jobs', { queue: 'session-ready', state: s });
        // Settled: the replay's sessions analysed (their debounced jobs were delayed, then due),
        // only the job above left.
        return state('waiting') + state('active') === 0 && state('delayed') === 1 ? x : undefined;
      },
      120_000,
      500,
    );
    const counts = await stack.queue.counts(QUEUES.sessionReady);
    expect(
      Object.fromEntries(
        samplesOf(e, 'warden_queue_jobs', { queue: 'session-ready' }).map((s) => [s.labels.state, s.value]),
      ),
    ).toEqual({
      waiting: counts.waiting,
      active: counts.active,
      delayed: counts.delayed,
      failed: counts.failed,
    });
    expect(counts.delayed).toBe(1);
    const [row] = await stack.prisma.$queryRaw<
      { n: bigint }[]
    >`SELECT count(*) AS n FROM session_intelligence`;
    expect(Number(row!.n)).toBeGreaterThan(0);
    expect(e.types.get('process_resident_memory_bytes')).toBe('GAUGE');
  }, 180_000);
});

/** Standalone serves every part's metrics once, on its one port (it used to answer the dashboard's HTML). */
describe('metrics: standalone', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-metrics-'));
  let s: StandaloneProcess;
  afterAll(async () => {
    await s?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('/metrics is the exposition, each family once, and counts a replay', async () => {
    s = await startStandalone({ WARDEN_DATA_DIR: dataDir });
    const res = await fetch(`${s.url}/metrics`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).not.toMatch(/<html/i);
    expect(text).not.toContain(s.generatedApiKey!);
    // One TYPE line per family: the parts share one registry.
    const typeLines = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(typeLines).size).toBe(typeLines.length);

    const summary = await replayFiles({
      files: [TRAJECTORY_FILES[2]!],
      baseUrl: s.url,
      apiKey: s.generatedApiKey!,
      limit: 3,
      concurrency: 2,
    });
    expect(summary.missing).toBe(0);
    const e = await scrape(`${s.url}/metrics`);
    expect(total(e, 'warden_events_accepted_total')).toBeGreaterThanOrEqual(summary.events_sent);
    expect(total(e, 'warden_guard_evaluation_duration_seconds_count')).toBeGreaterThan(0);
    expect(total(e, 'warden_projector_batch_records_sum', { topic: 'agent-events' })).toBeGreaterThanOrEqual(
      summary.events_sent,
    );
    expect(
      samplesOf(e, 'warden_queue_jobs', { queue: 'session-ready' })
        .map((x) => x.labels.state)
        .sort(),
    ).toEqual(['active', 'delayed', 'failed', 'waiting']);
    expect(total(e, 'warden_approvals_pending')).toBe(0);
    // The in-process bus is write-through: no consumer lag to report.
    expect(samplesOf(e, 'warden_kafka_consumer_lag')).toEqual([]);
  }, 240_000);
});
