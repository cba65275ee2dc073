/**
 * `npm run bench:otlp` — OTLP/HTTP trace ingest (`POST /v1/traces`, docs/otel.md) beside
 * `POST /v1/events` on equal work, through the real gateway into Kafka (issue 16).
 *
 * The work: the shared trajectories as an agent instrumented with OpenTelemetry would report them —
 * per trajectory an `invoke_agent` span, an `execute_tool` span per tool call (arguments and result)
 * and a `chat` span per assistant message (model, token counts) — made by the real SDK
 * (`@opentelemetry/sdk-trace`) and serialised by the exporters' own `ProtobufTraceSerializer`, 60
 * spans a request. The same requests, decoded and mapped by the gateway's own functions
 * (`decodeTraceRequest`, `mapExportRequest`), give the events that `/v1/events` receives as the
 * equal work: the same events, batched the same way. Both run in a closed loop with 8 senders,
 * interleaved in rounds (OTLP, then events, …) so background load hits both alike.
 *
 *   source .infra/env && npm run bench:otlp [-- --no-write] [-- --rounds 3]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { bootstrapProject } from '@agent-warden/api';
import { decodeTraceRequest } from '@agent-warden/gateway';
import { mapExportRequest } from '../services/gateway/src/otlp/map-request';
import { createPrisma } from '@agent-warden/db';
import { createTestDatabase } from '../test/support/database';
import { randomSuffix } from '../test/support/env';
import { Cleanup } from './lib/cleanup';
import { cpuWindow } from './lib/cpu';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, machineInfo, requireBenchEnv, ROOT } from './lib/env';
import { spawnGateway } from './lib/gateway-process';
import { identifyAgents, postEvents } from './lib/http';
import { closedLoop, Pool, type ClosedLoopResult } from './lib/load';
import { median } from './lib/stats';
import { loadTrajectories } from './lib/workload';

const COMMAND = 'source .infra/env && npm run bench:otlp';
const SPANS_PER_REQUEST = 60;
const CONCURRENCY = 8;
const SERVICE = { name: 'otlp-bench-agent', version: 'bench' };

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Text clipped to `n` characters (attribute values of a realistic size). */
const clip = (s: string | null | undefined, n: number) => (s ?? '').slice(0, n);

/** The trajectories as finished SDK spans, grouped per trajectory (one trace each). */
function spansOf(limit: number): ReadableSpan[][] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': SERVICE.name, 'service.version': SERVICE.version }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('bench-otlp', '1.0.0');
  const groups: ReadableSpan[][] = [];
  for (const t of loadTrajectories().slice(0, limit)) {
    memory.reset();
    const root: Span = tracer.startSpan(`invoke_agent ${t.domain}`, {
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': t.agent.slice(0, 100),
        'gen_ai.conversation.id': `bench-${randomSuffix()}-${t.trajectory_id}`.slice(0, 200),
      },
    });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    for (const step of t.steps) {
      if (step.kind === 'tool_call') {
        tracer
          .startSpan(
            `execute_tool ${step.tool ?? 'tool'}`,
            {
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': step.tool || 'tool',
                'gen_ai.tool.call.id': step.call_id ?? `call-${step.index}`,
                'gen_ai.tool.call.arguments': clip(JSON.stringify(step.arguments ?? {}), 2000),
                'gen_ai.tool.call.result': clip(step.result, 2000),
              },
            },
            ctx,
          )
          .end();
      } else if (step.role === 'assistant') {
        const text = step.content ?? '';
        tracer
          .startSpan(
            'chat bench-model',
            {
              attributes: {
                'gen_ai.operation.name': 'chat',
                'gen_ai.provider.name': 'openai',
                'gen_ai.request.model': 'gpt-4o-mini',
                'gen_ai.usage.input_tokens': 400 + step.index * 50,
                'gen_ai.usage.output_tokens': Math.ceil(text.length / 4),
              },
            },
            ctx,
          )
          .end();
      }
    }
    root.end();
    groups.push([...memory.getFinishedSpans()]);
  }
  return groups;
}

/** Requests of about `SPANS_PER_REQUEST` spans, whole traces each, serialised as an exporter does. */
function requestsOf(groups: ReadableSpan[][]): { body: Buffer; spans: number }[] {
  const out: { body: Buffer; spans: number }[] = [];
  let batch: ReadableSpan[] = [];
  const flush = () => {
    if (batch.length === 0) return;
    out.push({ body: Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!), spans: batch.length });
    batch = [];
  };
  for (const g of groups) {
    if (batch.length + g.length > SPANS_PER_REQUEST) flush();
    batch.push(...g);
  }
  flush();
  return out;
}

interface Row {
  label: string;
  runs: ClosedLoopResult[];
  gatewayCpu: number[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'no-write': { type: 'boolean', default: false },
      rounds: { type: 'string', default: '3' },
      trajectories: { type: 'string', default: '400' },
    },
  });
  const rounds = Number(values.rounds);
  const env = await requireBenchEnv();
  const machine = await machineInfo(env);
  const startedAt = new Date();
  log(`load average ${machine.load.join(' / ')} on ${machine.nproc} vCPU`);
  const cleanup = new Cleanup();
  process.once('SIGINT', () => void cleanup.runAll().then(() => process.exit(130)));
  try {
    const db = await createTestDatabase();
    cleanup.add('drop database', () => db.drop());
    const prisma = createPrisma(db.url, { poolMax: 1 });
    const apiKey = `aw_bench_${randomSuffix()}${randomSuffix()}${randomSuffix()}`;
    await bootstrapProject(prisma, { initApiKey: apiKey }).finally(() => prisma.$disconnect());
    const gateway = await spawnGateway({
      DATABASE_URL: db.url,
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      KAFKA_TOPIC_PREFIX: `bench${randomSuffix()}.`,
    });
    cleanup.add('stop gateway', () => gateway.stop());
    // The agent the OTLP route will find for the resource (service.name → key, service.version → version).
    const ids = (await identifyAgents(gateway.url, apiKey, [{ key: SERVICE.name, name: SERVICE.name }])).get(
      SERVICE.name,
    )!;

    const requests = requestsOf(spansOf(Number(values.trajectories)));
    // Equal work for /v1/events: the events the gateway makes of each request, sequences per session.
    const sequences = new Map<string, number>();
    const eventBodies = requests.map((r) => {
      const mapped = mapExportRequest(decodeTraceRequest(r.body, 'protobuf'), [ids]);
      const events = mapped.events.map(({ span: _span, depth: _depth, ...e }) => {
        const n = (sequences.get(e.sessionId) ?? 0) + 1;
        sequences.set(e.sessionId, n);
        return { ...e, sequence: n };
      });
      return { body: JSON.stringify({ events }), events: events.length };
    });
    const spans = requests.reduce((a, r) => a + r.spans, 0);
    const events = eventBodies.reduce((a, r) => a + r.events, 0);
    const otlpBytes = requests.reduce((a, r) => a + r.body.length, 0) / requests.length;
    const eventBytes = eventBodies.reduce((a, r) => a + r.body.length, 0) / eventBodies.length;
    log(
      `${requests.length} requests: ${spans} spans → ${events} events (${(events / spans).toFixed(2)} per span); mean body ${Math.round(otlpBytes)} B protobuf vs ${Math.round(eventBytes)} B JSON`,
    );

    const otlpPool = new Pool(requests);
    const eventPool = new Pool(eventBodies);
    const sendOtlp = async () => {
      const r = otlpPool.next();
      const res = await fetch(`${gateway.url}/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-protobuf' },
        body: r.body,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`POST /v1/traces: HTTP ${res.status}`);
      return r.spans;
    };
    const sendEvents = async () => {
      const r = eventPool.next();
      await postEvents(gateway.url, apiKey, r.body);
      return r.events;
    };
    // Unmeasured warm-up of both routes (JIT, connections, the sequence blocks' first rows).
    await closedLoop({ concurrency: CONCURRENCY, warmupMs: 0, durationMs: 2000, send: sendOtlp });
    await closedLoop({ concurrency: CONCURRENCY, warmupMs: 0, durationMs: 2000, send: sendEvents });

    const rows: Row[] = [
      { label: '`POST /v1/traces` (OTLP protobuf)', runs: [], gatewayCpu: [] },
      { label: '`POST /v1/events` (the same events, JSON)', runs: [], gatewayCpu: [] },
    ];
    for (let k = 0; k < rounds; k++) {
      for (const [i, send] of [sendOtlp, sendEvents].entries()) {
        let stop: (() => ReturnType<ReturnType<typeof cpuWindow>>) | undefined;
        const run = await closedLoop({
          concurrency: CONCURRENCY,
          warmupMs: 500,
          durationMs: 5000,
          send,
          onMeasureStart: () => (stop = cpuWindow({ gateway: gateway.pid }, ['gateway'])),
        });
        rows[i]!.runs.push(run);
        rows[i]!.gatewayCpu.push(stop!().processes.gateway ?? Number.NaN);
        log(
          `round ${k + 1} ${i === 0 ? 'otlp' : 'events'}: ${Math.round(run.eventsPerSecond)} /s, ${run.errors} errors`,
        );
      }
    }
    const perSpan = events / spans;
    const otlpSpans = median(rows[0]!.runs.map((r) => r.eventsPerSecond));
    const viaEvents = median(rows[1]!.runs.map((r) => r.eventsPerSecond));
    const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
    const section = [
      '## OTLP ingest beside `/v1/events` (`bench:otlp`)',
      '',
      `Run ${startedAt.toISOString()} with \`${COMMAND}\`. Machine: ${machine.nproc} vCPU, Node ${process.version}; load average ${machine.load.join(' / ')} before, ${loadAverage().join(' / ')} after. The real gateway in its own process (\`bench/lib/gateway-main.ts\`) into Kafka; ${CONCURRENCY} senders in a closed loop, ${rounds} interleaved rounds of 5 s each per route. Work: ${requests.length} requests made from ${Number(values.trajectories)} shared trajectories by the OpenTelemetry SDK (\`invoke_agent\`, \`execute_tool\` with arguments and result, \`chat\` with token counts; ${SPANS_PER_REQUEST} spans a request at most), serialised by \`ProtobufTraceSerializer\` (mean ${fmt(otlpBytes)} B); the same requests mapped by the gateway's own \`mapExportRequest\` give the \`/v1/events\` bodies (mean ${fmt(eventBytes)} B): ${spans} spans = ${events} events, ${perSpan.toFixed(2)} events a span.`,
      '',
      '| route | spans/s (median; min – max) | events/s | request p50 / p95 | gateway CPU (% of a core) | errors |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map((row, i) => {
        const rates = row.runs.map((r) => r.eventsPerSecond);
        const m = median(rates);
        const spansCol =
          i === 0 ? `${fmt(m)} (${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))})` : '—';
        const eventsCol =
          i === 0 ? fmt(m * perSpan) : `${fmt(m)} (${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))})`;
        return `| ${row.label} | ${spansCol} | ${eventsCol} | ${median(row.runs.map((r) => r.latencyP50Ms)).toFixed(1)} / ${median(row.runs.map((r) => r.latencyP95Ms)).toFixed(1)} ms | ${Math.round(median(row.gatewayCpu))} | ${row.runs.reduce((a, r) => a + r.errors, 0)} |`;
      }),
      '',
      `OTLP delivers ${fmt(otlpSpans * perSpan)} events/s as spans against ${fmt(viaEvents)} events/s through \`/v1/events\`: **${(((otlpSpans * perSpan) / viaEvents) * 100).toFixed(0)} %** of the native route on equal work. The OTLP route also decodes protobuf, maps attributes and reserves each session's sequence numbers in PostgreSQL (\`otlp_sequence_blocks\`, one row per session and request; docs/decisions.md), which \`/v1/events\` does not.`,
    ].join('\n');
    process.stdout.write(section + '\n');
    if (!values['no-write']) {
      writeDocSection(path.join(ROOT, 'docs/benchmarks.md'), 'otlp', section);
      log('wrote docs/benchmarks.md');
    }
  } finally {
    await cleanup.runAll();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(
      `bench:otlp failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
