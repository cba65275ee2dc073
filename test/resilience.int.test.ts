import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { WardenClient } from '@agent-warden/client';
import { newId } from '@agent-warden/contracts';
import { replayFiles } from '../scripts/replay/replay';
import { TRAJECTORIES_DIR } from './support/env';
import { call, waitFor } from './support/http';
import { startTestStack, type TestStack } from './support/stack';

const KAFKA_SH = path.resolve(__dirname, '../infra/kafka/kafka.sh');
const kafka = (cmd: 'start' | 'stop') =>
  execFileSync('bash', [KAFKA_SH, cmd], { stdio: 'inherit', timeout: 120_000 });

/** Restarts and outages in the middle of ingestion: nothing accepted is lost, nothing is stored twice. */
describe('stack: restarts and outages', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  test('the projector is killed (SIGKILL) mid-replay and restarted: every event stored exactly once', async () => {
    let killed = false;
    let restarted: Promise<unknown> | undefined;
    const summary = await replayFiles({
      files: [
        path.join(TRAJECTORIES_DIR, 'tau_bench_airline.jsonl'),
        path.join(TRAJECTORIES_DIR, 'swe_agent.jsonl'),
      ],
      baseUrl: stack.gatewayUrl,
      statsUrl: stack.apiUrl,
      apiKey: stack.apiKey,
      concurrency: 8,
      onTrajectory: (done) => {
        if (done === 60 && !killed) {
          killed = true;
          restarted = (async () => {
            await stack.killProjectors();
            await new Promise((r) => setTimeout(r, 1000));
            await stack.startProjector();
          })();
        }
      },
    });
    await restarted;
    expect(killed).toBe(true);
    expect(summary.trajectories).toBe(178);
    expect(summary.missing).toBe(0);
    expect(summary.duplicates).toBe(0);
    expect(summary.events_stored).toBe(summary.events_sent);
    const counts = await stack.prisma.$queryRaw<{ n: bigint; sum: bigint }[]>`
      SELECT count(*) AS n, coalesce(sum(event_count), 0) AS sum FROM sessions`;
    expect(Number(counts[0]!.n)).toBe(178);
    // Session counters are derived only from newly inserted rows, so re-delivery cannot inflate them.
    expect(Number(counts[0]!.sum)).toBe(summary.events_sent);
  }, 600_000);

  test('Kafka stops while a client is sending; after it is back nothing is lost (the client retried the 503s)', async () => {
    const client = new WardenClient({
      baseUrl: stack.gatewayUrl,
      apiKey: stack.apiKey,
      agent: { key: 'outage-agent' },
      flushIntervalMs: 200,
    });
    await client.ready();
    let sending = true;
    let tracked = 0;
    const ids: string[] = [];
    const sender = (async () => {
      while (sending) {
        ids.push(client.track('tick', { n: tracked }));
        tracked += 1;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await new Promise((r) => setTimeout(r, 1500));
    kafka('stop');
    try {
      // While Kafka is down the gateway answers 503 with Retry-After (the client retries those).
      const probe = {
        id: newId(),
        type: 'agent.custom',
        time: new Date().toISOString(),
        sessionId: newId(),
        agentId: client.agentId,
        agentVersionId: client.agentVersionId,
        sequence: 1,
        data: { name: 'probe' },
      };
      const down = await call(stack.gatewayUrl, 'POST', '/v1/events', {
        apiKey: stack.apiKey,
        body: { events: [probe] },
      });
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('event_log_unavailable');
      expect(down.headers.get('retry-after')).toBe('1');
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      kafka('start');
    }
    await new Promise((r) => setTimeout(r, 1500));
    sending = false;
    await sender;
    await client.shutdown();
    const stats = client.stats();
    expect(stats.queued).toBe(0);
    expect(stats.dropped).toBe(0);
    expect(stats.failed).toBe(0);
    expect(stats.retries).toBeGreaterThan(0);
    // Every tracked event was sent (plus the session's start event the client adds).
    expect(stats.sent).toBeGreaterThanOrEqual(tracked);
    const stored = await waitFor(async () => {
      const r = await call(stack.apiUrl, 'GET', `/v1/stats/events?agentVersionId=${client.agentVersionId}`, {
        apiKey: stack.apiKey,
      });
      return r.body.events >= stats.sent ? r.body : undefined;
    }, 60_000);
    // One answer is one snapshot (docs/decisions.md "The event counts are one snapshot").
    expect(stored.events).toBe(stats.sent);
    expect(stored.byType['agent.custom']).toBe(tracked);
    expect(stored.duplicates).toBe(0);
    // Each tracked event, by its id, is in the database.
    const rows = await stack.prisma.event.count({ where: { projectId: stack.projectId, id: { in: ids } } });
    expect(rows).toBe(tracked);
  }, 300_000);

  test('Kafka stops while guard checks are answered; after it is back every answered evaluation is stored once', async () => {
    const identify = await call(stack.gatewayUrl, 'POST', '/v1/agents/identify', {
      apiKey: stack.apiKey,
      body: { agent: { key: 'outage-guard-agent' }, version: { version: '1' } },
    });
    expect(identify.status).toBe(200);
    const ids: string[] = [];
    const statuses = new Map<number, number>();
    let checking = true;
    const checker = (async () => {
      for (let i = 0; checking; i++) {
        const r = await call(stack.gatewayUrl, 'POST', '/v1/guardrails/evaluate', {
          apiKey: stack.apiKey,
          body: {
            agentId: identify.body.agentId,
            tool: { name: 'outage_check' },
            arguments: { i },
            mode: 'monitor',
          },
        });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 200) ids.push(r.body.evaluationId as string);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await new Promise((r) => setTimeout(r, 1000));
    const beforeOutage = ids.length;
    kafka('stop');
    let duringOutage: number | undefined;
    try {
      await new Promise((r) => setTimeout(r, 3000));
      // The guard check does not wait for Kafka: answers go on while the records wait in the buffer.
      duringOutage = ids.length - beforeOutage;
    } finally {
      kafka('start');
    }
    await new Promise((r) => setTimeout(r, 1500));
    checking = false;
    await checker;
    expect(duringOutage).toBeGreaterThan(10);
    expect([...statuses.keys()]).toEqual([200]);
    expect(new Set(ids).size).toBe(ids.length);

    const stored = await waitFor(async () => {
      const n = await stack.prisma.guardrailEvaluation.count({ where: { id: { in: ids } } });
      return n >= ids.length ? n : undefined;
    }, 90_000);
    expect(stored).toBe(ids.length);
    const byTool = await stack.prisma.guardrailEvaluation.count({
      where: { projectId: stack.projectId, toolName: 'outage_check' },
    });
    expect(byTool).toBe(ids.length);
  }, 300_000);
});
