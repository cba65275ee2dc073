import type { MachineInfo } from './env';
import type { ProfileLine } from './profile';
import { fmtInt, fmtMs, fmtRatio } from './stats';
import type { GatewayBenchResult, Series } from '../parts/gateway';
import type { ProjectorBenchResult } from '../parts/projector';
import type { VisibilityBenchResult } from '../parts/visibility';

/** Everything one `npm run bench:ingest` measured. */
export interface IngestResults {
  startedAt: Date;
  command: string;
  machine: MachineInfo;
  loadAfter: [number, number, number];
  seconds: number;
  /** Versions of the Kafka client (`@platformatic/kafka`) and of Prisma. */
  versions: { kafka: string; prisma: string };
  gateway: GatewayBenchResult;
  projector: ProjectorBenchResult;
  visibility: VisibilityBenchResult;
}

/** `12,345 events/s` per core-second: rate divided by the CPU share used (100 % = one core). */
function perCore(rate: number, cpuPercent: number | undefined): string {
  return cpuPercent && cpuPercent > 0 ? fmtInt(rate / (cpuPercent / 100)) : '–';
}

function latency(ms: number, settleMs: number): string {
  return Number.isFinite(ms) ? fmtMs(ms) : `> ${fmtInt(settleMs / 1000)} s (not seen)`;
}

function profileTable(lines: ProfileLine[], n: number): string {
  return [
    '| self time | share |',
    '| --- | ---: |',
    ...lines.slice(0, n).map((l) => `| ${l.name.replaceAll('|', '\\|')} | ${(l.share * 100).toFixed(1)} % |`),
  ].join('\n');
}

function renderHeader(r: IngestResults): string {
  const m = r.machine;
  const g = r.gateway;
  const p = r.projector;
  const v = r.visibility;
  const busy: number[] = [
    ...g.rows.flatMap((x) =>
      [x.gateway, x.floor, x.floorProduce, x.bare, x.bareCoalesced].flatMap((series) =>
        series.runs.map((run) => run.cpu.machineBusy),
      ),
    ),
    p.projector.cpu.machineBusy,
    v.cpu.machineBusy,
  ];
  const when = r.startedAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const out: string[] = [];
  out.push(`## Ingest pipeline (\`npm run bench:ingest\`)

| | |
| --- | --- |
| date | ${when} (run took ${Math.round(r.seconds)} s) |
| command | \`${r.command}\` |
| machine | ${m.nproc} vCPU (\`nproc\`), ${m.memoryGiB} GiB RAM, ${m.cpuModel} |
| software | Node ${m.node}, Kafka ${m.kafka} (KRaft, 1 broker, loopback), PostgreSQL ${m.postgres} (loopback), @platformatic/kafka ${r.versions.kafka}, Prisma ${r.versions.prisma} |
| load average (1/5/15 min) | before ${m.load.join(' / ')}, after ${r.loadAfter.join(' / ')} |
| machine CPU busy during the measured windows | ${Math.min(...busy)}–${Math.max(...busy)} % of all cores (the machine is shared with other work) |

Events are built from the shared trajectories (\`../shared/data/trajectories/*.jsonl\`, read in place):
each trajectory replayed as a session — session/run started, one \`agent.message.logged\` per
message, \`agent.tool.started\` + \`agent.tool.completed\`/\`failed\` with the logged arguments and
results, run completed, session ended. Mean CloudEvent record: ${fmtInt(g.meanRecordBytes)} bytes;
mean request body of ${g.options.batchSize} events: ${fmtInt(g.meanBodyBytes)} bytes. Topics have ${g.options.partitions} partitions.
Each run uses fresh databases (dropped afterwards) and topics under a random prefix.

### Summary

| measure | result | reference | ratio | target |
| --- | ---: | ---: | ---: | --- |`);
  for (const row of g.rows)
    out.push(
      `| gateway → Kafka, ${row.concurrency} HTTP clients | ${fmtInt(row.gateway.eventsPerSecond)} events/s | bare producer ${fmtInt(row.bare.eventsPerSecond)} events/s | ${fmtRatio(row.gateway.eventsPerSecond, row.bare.eventsPerSecond)} | ≥ 60 % |`,
    );
  out.push(
    `| projector Kafka → PostgreSQL (${fmtInt(p.options.records)} records) | ${fmtInt(p.projector.eventsPerSecond)} events/s | bare INSERT ${fmtInt(p.bare.eventsPerSecond)} events/s | ${fmtRatio(p.projector.eventsPerSecond, p.bare.eventsPerSecond)} | ≥ 50 % |`,
    `| visibility at ${fmtInt(v.options.eventsPerSecond)} events/s, p95 | ${latency(v.p95Ms, v.options.settleMs)} | p50 ${latency(v.p50Ms, v.options.settleMs)}, max ${latency(v.maxMs, v.options.settleMs)} | – | < 1 s |`,
  );
  return out.join('\n');
}

function renderGateway(g: GatewayBenchResult): string {
  const out: string[] = [];
  out.push(`### 1. Gateway into Kafka vs a bare @platformatic/kafka producer

Closed loop: N concurrent senders, each sends its next batch of ${g.options.batchSize} events as soon as the previous
one is acknowledged. After ${g.options.initialWarmupMs / 1000} s of unmeasured gateway load, ${g.options.rounds} rounds of (gateway, floor, floor + produce, bare per batch, bare
coalesced) runs alternate, each ${g.options.warmupMs / 1000} s warm-up + ${g.options.durationMs / 1000} s measured (events/s = events acknowledged in the window ÷
window); the tables give the median of the rounds and [lowest–highest]. **Gateway**: \`start()\` of
\`@agent-warden/gateway\` in a child process (\`bench/lib/gateway-main.ts\`), fresh database, bootstrapped key,
agents identified through \`POST /v1/agents/identify\`; clients are Node's \`fetch\` (undici, keep-alive) in
the benchmark process; every answer was a 202 with every event accepted. **Floor**: \`POST /bench/floor\` on the
gateway's own server (\`bench/lib/floor.ts\`), same clients and bodies: it only receives the body, \`JSON.parse\`s it and
answers 202 \`{accepted, rejected: []}\` — what any HTTP gateway must do before its own work. **Floor + produce**:
\`POST /bench/floor-produce\`, the same plus the gateway's publish of each event, unvalidated (\`toCloudEvent\`, key = sessionId,
a \`KafkaBus\` of its own configured like the gateway's) before the 202: a gateway that trusted its input. **Bare producer**: \`@platformatic/kafka\` in the
benchmark process with the gateway's client and producer settings (idempotent, \`acks: -1\`, the Java
client's placement of keys), sending the same records (the gateway's \`toCloudEvent\` JSON, key = sessionId):
*per batch* = one \`send\` per ${g.options.batchSize}-record batch from each sender, concurrently (several produce
requests in flight); *coalesced* = concurrent batches merged into one \`send\` by the bus's own \`SendCoalescer\`, as the
gateway does. CPU = % of one core used by the process during the window (/proc; a Node process can exceed
100 % with its GC and I/O threads); "per core-second" = events/s ÷ that share, a figure that depends less on
what else the machine runs.

| clients | gateway events/s | POST p50 / p95 | gateway CPU | gateway events per core-second | floor events/s | floor CPU | floor + produce events/s | floor + produce CPU | bare per batch events/s | gateway ÷ bare | floor ÷ bare | floor + produce ÷ bare | gateway ÷ floor | gateway ÷ floor + produce | bare coalesced events/s | gateway ÷ coalesced | bare coalesced events per core-second |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  const spread = (x: Series) => `${fmtInt(x.eventsPerSecond)} [${fmtInt(x.min)}–${fmtInt(x.max)}]`;
  for (const row of g.rows) {
    const gw = row.gateway;
    out.push(
      `| ${row.concurrency} | ${spread(gw)} | ${fmtMs(gw.latencyP50Ms)} / ${fmtMs(gw.latencyP95Ms)} | ${gw.cpu.gateway} % | ${perCore(gw.eventsPerSecond, gw.cpu.gateway)} | ${spread(row.floor)} | ${row.floor.cpu.gateway} % | ${spread(row.floorProduce)} | ${row.floorProduce.cpu.gateway} % | ${spread(row.bare)} | ${fmtRatio(gw.eventsPerSecond, row.bare.eventsPerSecond)} | ${fmtRatio(row.floor.eventsPerSecond, row.bare.eventsPerSecond)} | ${fmtRatio(row.floorProduce.eventsPerSecond, row.bare.eventsPerSecond)} | ${fmtRatio(gw.eventsPerSecond, row.floor.eventsPerSecond)} | ${fmtRatio(gw.eventsPerSecond, row.floorProduce.eventsPerSecond)} | ${spread(row.bareCoalesced)} | ${fmtRatio(gw.eventsPerSecond, row.bareCoalesced.eventsPerSecond)} | ${perCore(row.bareCoalesced.eventsPerSecond, row.bareCoalesced.cpu.bench)} |`,
    );
  }
  const errors = g.rows.reduce(
    (a, x) =>
      a + x.gateway.errors + x.floor.errors + x.floorProduce.errors + x.bare.errors + x.bareCoalesced.errors,
    0,
  );
  out.push(`
Errors: ${errors}. Load generator (benchmark process) CPU during the gateway runs: ${g.rows.map((x) => `${x.gateway.cpu.bench} %`).join(', ')}.`);
  if (g.profile)
    out.push(`
Where the gateway's CPU goes (V8 sampling profile of the gateway process during an extra, unmeasured
${g.options.profileMs / 1000} s run at ${Math.max(...g.options.concurrencies)} clients; self time as a share of the samples; "(idle)" = event loop waiting for I/O):

${profileTable(g.profile.packages, 12)}

Top functions:

${profileTable(g.profile.functions, 15)}`);
  return out.join('\n');
}

function renderProjector(p: ProjectorBenchResult): string {
  const pr = p.projector;
  return `### 2. Projector vs a bare multi-row INSERT

${fmtInt(p.options.records)} records pre-loaded into a fresh topic (bare producer, ${fmtInt(p.preload.eventsPerSecond)} records/s), then the
projector as shipped — \`startProjection\` of \`@agent-warden/projector\` with a \`KafkaBus\` and its consumer settings
(fetches of up to 4 MiB per partition, 16 MiB in all), in the benchmark process, nothing else running,
\`partitionsConsumedConcurrently\` ${p.options.concurrency}, \`pg\` pool 10 (shared with Prisma) as \`createPrisma\` defaults — drains them into a fresh database;
each batch's events go in as one \`INSERT … SELECT FROM jsonb_to_recordset($1) … ON CONFLICT (project_id, id, time) DO NOTHING\`
(\`libs/db/src/projection/insert-events.ts\`) inside \`writeBatch\`'s transaction on a plain \`pg\` connection, its projections in one more statement.
\`SELECT count(*) FROM events\` is polled every 50 ms. events/s = records ÷ (first batch handed to the handler →
count reached). **Bare INSERT**: the same rows (same columns, \`ON CONFLICT (project_id, id, time) DO NOTHING\`) into the
\`events\` table of another fresh database with \`pg\`, one connection per partition in parallel,
${fmtInt(p.bare.batchSize)} rows per statement (the projector's mean batch), autocommit, no session/run upserts.

| | events/s | ÷ bare INSERT | batches (mean / max records) | handler mean | share of partition time in the handler | CPU (benchmark process) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| projector as shipped | ${fmtInt(pr.eventsPerSecond)} | ${fmtRatio(pr.eventsPerSecond, p.bare.eventsPerSecond)} | ${pr.batches} (${fmtInt(pr.meanBatch)} / ${fmtInt(pr.maxBatch)}) | ${fmtMs(pr.meanHandlerMs)} | ${Math.round(pr.handlerShare * 100)} % | ${pr.cpu.processes.bench} % |
| bare multi-row INSERT | ${fmtInt(p.bare.eventsPerSecond)} | 100 % | ${fmtInt(p.bare.batchSize)} rows per statement | | | ${p.bare.cpu.processes.bench} % |

Whole machine busy: ${pr.cpu.machineBusy} % of all cores during the projector's drain, ${p.bare.cpu.machineBusy} % during the bare INSERT.

Consumer group join + first fetch: ${pr.joinSeconds.toFixed(1)} s (not counted).

Each step alone, without Kafka, on the same ${fmtInt(p.options.records)} records (same batch size, one worker per partition):

| step | events/s |
| --- | ---: |
| \`decodeRecord\` (JSON.parse, CloudEvent + AgentEvent zod parse), one core | ${fmtInt(p.steps.decodePerSecond)} |
| \`writeBatch\` (one \`pg\` transaction: events insert, then sessions, runs, scores, LLM calls, evaluations in one statement) | ${fmtInt(p.steps.writeBatchPerSecond)} |
| bare multi-row INSERT (above) | ${fmtInt(p.bare.eventsPerSecond)} |

Where the CPU goes in \`writeBatch\` (profile of the benchmark process during that step):

${profileTable(p.writeProfile.packages, 10)}

${profileTable(p.writeProfile.functions, 12)}`;
}

function renderVisibility(v: VisibilityBenchResult): string {
  const o = v.options;
  const cpu = Object.values(v.cpu.processes);
  return `### 3. Visibility latency

Stack from \`test/support/stack.ts\` (\`startTestStack\`): fresh database, gateway and api in the benchmark
process, the projector as shipped (\`services/projector/src/main.ts\`) as a child process. Background load: an open
loop posting batches of ${o.batchSize} realistic events on a fixed schedule (${fmtInt(o.eventsPerSecond)} events/s offered, at most
${o.maxInFlight} requests in flight). After ${o.warmupMs / 1000} s, ${o.probes} probes, one every ${o.probeIntervalMs} ms: each is one
\`agent.custom\` event in a session of its own, sent alone in a \`POST /v1/events\`. **Measured**: from the
probe's 202 (the gateway has it in Kafka) to the arrival of the first answer of
\`GET /v1/events?type=agent.custom\` on the api that lists it (one poller, next poll ${o.pollMs} ms after the previous
answer) — an upper bound; the lower bound is the start of that poll. The resolution is the poll period.

| accepted events/s | skipped batches | probes seen | p50 | p95 | max | lower bound p50 / p95 | poll period | p50 first → last quarter | backlog when the probes ended | load POST p50 / p95 | CPU benchmark process / projector |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| ${fmtInt(v.acceptedPerSecond)} | ${v.skippedBatches} | ${v.probesSeen} / ${v.probesSent} | ${latency(v.p50Ms, o.settleMs)} | ${latency(v.p95Ms, o.settleMs)} | ${latency(v.maxMs, o.settleMs)} | ${fmtMs(v.lowerP50Ms)} / ${fmtMs(v.lowerP95Ms)} | ${fmtMs(v.pollPeriodMs)} | ${fmtMs(v.firstQuarterP50Ms)} → ${fmtMs(v.lastQuarterP50Ms)} | ${fmtInt(v.backlogAtEnd)} events | ${fmtMs(v.loadPostP50Ms)} / ${fmtMs(v.loadPostP95Ms)} | ${cpu.map((c) => `${c} %`).join(' / ')} |`;
}

/** The markdown of the ingest section of docs/benchmarks.md (what goes between its markers). */
export function renderIngestSection(r: IngestResults): string {
  return [
    renderHeader(r),
    renderGateway(r.gateway),
    renderProjector(r.projector),
    renderVisibility(r.visibility),
  ].join('\n\n');
}
