/**
 * One configuration of `npm run bench:producers`, in its own process so that its CPU time is its
 * own: publishes `RATE` evaluation-sized records per second for `SECONDS` (after `WARMUP_SECONDS`)
 * the way the gateway's recorder does — every `FLUSH_MS` the records due so far in one `publish`,
 * never awaited by the timer (the publisher coalesces them, one produce request in flight).
 * Prints one JSON line: {@link ProducerRun}.
 *
 * The publisher is `PlatformaticPublisher` (what `KafkaBus.publish` and the gateway's evaluation
 * thread run). Environment: `FLUSH_MS`, `RATE`, `SECONDS`, `WARMUP_SECONDS`, `KAFKA_BROKERS`, `TOPIC_PREFIX`, `BROKER_PID`
 * (optional: the broker's CPU is measured over the same window).
 */
import {
  evaluationMessage,
  newId,
  TOPICS,
  type EvaluationRecord,
  type TopicMessage,
} from '@agent-warden/contracts';
import { PlatformaticPublisher } from '../../libs/bus/src/platformatic-publisher';
import { silentLogger } from '@agent-warden/observability';
import { processCpuSeconds } from '../lib/cpu';
import { percentile } from '../lib/stats';
import { loadTrajectories } from '../lib/workload';
import { rng, toolCallsOf } from '../evaluate/policies';

/** What one configuration measured (the measured window only). */
export interface ProducerRun {
  flushMs: number;
  rate: number;
  seconds: number;
  records: number;
  meanRecordBytes: number;
  /** CPU of this process (main thread, GC and libuv threads), µs per record and % of one core. */
  cpuUsPerRecord: number;
  cpuPercent: number;
  /** The broker's CPU in % of one core (NaN without BROKER_PID). */
  brokerCpuPercent: number;
  /** From `publish` to its acknowledgement (acks: -1), ms. */
  ackP50Ms: number;
  ackP99Ms: number;
}

const topic = TOPICS.guardrailEvaluations;
type Message = TopicMessage<typeof topic>;

function env(name: string, fallback?: string): string {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is not set`);
  return v;
}

/** Evaluation records as the gateway publishes them, built from the real tool calls of the shared trajectories. */
function records(n: number): Message[] {
  const calls = toolCallsOf(loadTrajectories());
  const r = rng(7);
  const projectId = newId();
  const agentId = newId();
  return Array.from({ length: n }, () => {
    const c = r.pick(calls);
    const evaluationId = newId();
    const sessionId = newId();
    const runId = newId();
    const evaluatedAt = new Date().toISOString();
    const data: EvaluationRecord = {
      evaluationId,
      projectId,
      agentId,
      agentVersionId: newId(),
      sessionId,
      runId,
      toolCallId: newId(),
      mode: 'monitor',
      policyDecision: 'warn',
      effectiveDecision: 'allow',
      matchedGuardrails: [
        {
          policyId: newId(),
          name: `bench policy on ${c.tool}`,
          version: 3,
          decision: 'warn',
          reason: `tool.name = ${c.tool}`,
        },
      ],
      wouldBlock: false,
      wouldRequireApproval: false,
      dryRun: false,
      approvalId: null,
      input: { tool: { name: c.tool }, arguments: c.args },
      evaluatedAt,
    };
    return evaluationMessage(data);
  });
}

async function main(): Promise<void> {
  const flushMs = Number(env('FLUSH_MS'));
  const rate = Number(env('RATE', '1000'));
  const seconds = Number(env('SECONDS', '10'));
  const warmupSeconds = Number(env('WARMUP_SECONDS', '2'));
  const brokerPid = Number(process.env.BROKER_PID ?? Number.NaN);
  const options = {
    brokers: env('KAFKA_BROKERS').split(','),
    clientId: 'bench-producers',
    topicPrefix: env('TOPIC_PREFIX'),
    logger: silentLogger(),
  };
  const bus = new PlatformaticPublisher(options);
  const pool = records(2_000);
  const meanRecordBytes =
    pool.reduce((a, m) => a + Buffer.byteLength(JSON.stringify(m.value)), 0) / pool.length;
  await bus.publish(topic, pool.slice(0, 10)); // connect, metadata, producer id

  const acks: number[] = [];
  const publishes: Promise<void>[] = [];
  let next = 0;
  let measuring = false;
  let counted = 0;
  const total = Math.round((warmupSeconds + seconds) * rate);
  const t0 = performance.now();
  let cpu0 = process.cpuUsage();
  let broker0 = processCpuSeconds(brokerPid);
  let w0 = t0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (!measuring && now - t0 >= warmupSeconds * 1000) {
        measuring = true;
        cpu0 = process.cpuUsage();
        broker0 = processCpuSeconds(brokerPid);
        w0 = now;
      }
      const due = Math.min(total, Math.floor(((now - t0) / 1000) * rate));
      if (due > next) {
        const batch = Array.from({ length: due - next }, (_, i) => pool[(next + i) % pool.length]!);
        next = due;
        const sent = performance.now();
        const inWindow = measuring;
        if (inWindow) counted += batch.length;
        publishes.push(
          bus.publish(topic, batch).then(() => {
            if (inWindow) acks.push(performance.now() - sent);
          }),
        );
      }
      if (next >= total) {
        clearInterval(timer);
        resolve();
      }
    }, flushMs);
  });
  await Promise.all(publishes);
  const windowS = (performance.now() - w0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = cpu.user + cpu.system;
  const run: ProducerRun = {
    flushMs,
    rate,
    seconds: windowS,
    records: counted,
    meanRecordBytes: Math.round(meanRecordBytes),
    cpuUsPerRecord: cpuUs / counted,
    cpuPercent: cpuUs / 1e4 / windowS,
    brokerCpuPercent: ((processCpuSeconds(brokerPid) - broker0) / windowS) * 100,
    ackP50Ms: percentile(acks, 50),
    ackP99Ms: percentile(acks, 99),
  };
  await bus.close();
  process.stdout.write(JSON.stringify(run) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:producers run failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
