import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { MachineInfo } from './env';
import type { ProfileLine } from './profile';
import { fmtInt, fmtMs, fmtRatio } from './stats';
import type { GatewayBenchResult, Series } from '../parts/gateway';
import { BIG_FETCH, type ProjectorBenchResult } from '../parts/projector';
import type { VisibilityBenchResult } from '../parts/visibility';

/** Everything one `npm run bench:ingest` measured. */
export interface IngestResults {
  startedAt: Date;
  command: string;
  machine: MachineInfo;
  loadAfter: [number, number, number];
  seconds: number;
  versions: { kafkajs: string; prisma: string };
  gateway: GatewayBenchResult;
  projector: ProjectorBenchResult;
  visibility: VisibilityBenchResult[];
}

const START = '<!-- bench:ingest:start -->';
const END = '<!-- bench:ingest:end -->';

const FILE_HEADER = `# Benchmarks

Measured figures. Each section is written by the script it names and replaced when that script runs
again; text outside the generated sections is written by hand.
`;

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

/** The markdown of the ingest section (between its markers). */
export function renderIngestSection(r: IngestResults): string {
  const m = r.machine;
  const g = r.gateway;
  const p = r.projector;
  const busy: number[] = [
    ...g.rows.flatMap((x) =>
      [x.gateway, x.bare, x.bareCoalesced].flatMap((series) => series.runs.map((run) => run.cpu.machineBusy)),
    ),
    p.projector.cpu.machineBusy,
    p.prototype.cpu.machineBusy,
    ...r.visibility.map((v) => v.cpu.machineBusy),
  ];
  const when = r.startedAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const out: string[] = [];
  out.push(`## Ingest pipeline (\`npm run bench:ingest\`)

| | |
| --- | --- |
| date | ${when} (run took ${Math.round(r.seconds)} s) |
| command | \`${r.command}\` |
| machine | ${m.nproc} vCPU (\`nproc\`), ${m.memoryGiB} GiB RAM, ${m.cpuModel} |
| software | Node ${m.node}, Kafka ${m.kafka} (KRaft, 1 broker, loopback), PostgreSQL ${m.postgres} (loopback), kafkajs ${r.versions.kafkajs}, Prisma ${r.versions.prisma} |
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
  );
  for (const v of r.visibility)
    out.push(
      `| visibility at ${fmtInt(v.options.eventsPerSecond)} events/s, p95 (${v.options.projector === 'shipped' ? 'projector as shipped' : 'prototype projector'}) | ${latency(v.p95Ms, v.options.settleMs)} | p50 ${latency(v.p50Ms, v.options.settleMs)}, max ${latency(v.maxMs, v.options.settleMs)} | – | < 1 s |`,
    );

  out.push(`
### 1. Gateway into Kafka vs a bare kafkajs producer

Closed loop: N concurrent senders, each sends its next batch of ${g.options.batchSize} events as soon as the previous
one is acknowledged. After ${g.options.initialWarmupMs / 1000} s of unmeasured gateway load, ${g.options.rounds} rounds of (gateway, bare per batch, bare
coalesced) runs alternate, each ${g.options.warmupMs / 1000} s warm-up + ${g.options.durationMs / 1000} s measured (events/s = events acknowledged in the window ÷
window); the tables give the median of the rounds and [lowest–highest]. **Gateway**: \`start()\` of
\`@agent-warden/gateway\` in a child process (\`bench/lib/gateway-main.ts\`), fresh database, bootstrapped key,
agents identified through \`POST /v1/agents/identify\`; clients are Node's \`fetch\` (undici, keep-alive) in
the benchmark process; every answer was a 202 with every event accepted. **Bare producer**: kafkajs in the
benchmark process with the gateway's client and producer settings (idempotent, \`acks: -1\`,
\`maxInFlightRequests: 1\`), sending the same records (the gateway's \`toCloudEvent\` JSON, key = sessionId):
*per batch* = one \`send\` per ${g.options.batchSize}-record batch from each sender (kafkajs queues them behind the one request
in flight); *coalesced* = concurrent batches merged into one \`send\` by the bus's own \`SendCoalescer\`, as the
gateway does. CPU = % of one core used by the process during the window (/proc; a Node process can exceed
100 % with its GC and I/O threads); "per core-second" = events/s ÷ that share, a figure that depends less on
what else the machine runs.

| clients | gateway events/s | POST p50 / p95 | gateway CPU | gateway events per core-second | bare per batch events/s | gateway ÷ bare | bare coalesced events/s | gateway ÷ coalesced | bare coalesced events per core-second |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  const spread = (x: Series) => `${fmtInt(x.eventsPerSecond)} [${fmtInt(x.min)}–${fmtInt(x.max)}]`;
  for (const row of g.rows) {
    const gw = row.gateway;
    out.push(
      `| ${row.concurrency} | ${spread(gw)} | ${fmtMs(gw.latencyP50Ms)} / ${fmtMs(gw.latencyP95Ms)} | ${gw.cpu.gateway} % | ${perCore(gw.eventsPerSecond, gw.cpu.gateway)} | ${spread(row.bare)} | ${fmtRatio(gw.eventsPerSecond, row.bare.eventsPerSecond)} | ${spread(row.bareCoalesced)} | ${fmtRatio(gw.eventsPerSecond, row.bareCoalesced.eventsPerSecond)} | ${perCore(row.bareCoalesced.eventsPerSecond, row.bareCoalesced.cpu.bench)} |`,
    );
  }
  const errors = g.rows.reduce((a, x) => a + x.gateway.errors + x.bare.errors + x.bareCoalesced.errors, 0);
  out.push(`
Errors: ${errors}. Load generator (benchmark process) CPU during the gateway runs: ${g.rows.map((x) => `${x.gateway.cpu.bench} %`).join(', ')}.`);
  if (g.profile)
    out.push(`
Where the gateway's CPU goes (V8 sampling profile of the gateway process during an extra, unmeasured
${g.options.profileMs / 1000} s run at ${Math.max(...g.options.concurrencies)} clients; self time as a share of the samples; "(idle)" = event loop waiting for I/O):

${profileTable(g.profile.packages, 12)}

Top functions:

${profileTable(g.profile.functions, 15)}`);

  const pr = p.projector;
  const pt = p.prototype;
  const pb = p.prototypeBigFetch;
  out.push(`
### 2. Projector vs a bare multi-row INSERT

${fmtInt(p.options.records)} records pre-loaded into a fresh topic (bare producer, ${fmtInt(p.preload.eventsPerSecond)} records/s), then
\`startProjection\` of \`@agent-warden/projector\` with a \`KafkaBus\` (in the benchmark process, nothing else running,
\`partitionsConsumedConcurrently\` ${p.options.concurrency}, Prisma pool 10 as \`createPrisma\` defaults) drains them into a fresh database;
\`SELECT count(*) FROM events\` is polled every 50 ms. events/s = records ÷ (first batch handed to the handler →
count reached). **Bare INSERT**: the same rows (same columns, \`ON CONFLICT (id) DO NOTHING\`) into the
\`events\` table of another fresh database with \`pg\`, one connection per partition in parallel,
${fmtInt(p.bare.batchSize)} rows per statement (the projector's mean batch), autocommit.

| | events/s | ÷ bare INSERT | batches (mean / max records) | handler mean | share of partition time in the handler | CPU (benchmark process) |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| projector as shipped | ${fmtInt(pr.eventsPerSecond)} | ${fmtRatio(pr.eventsPerSecond, p.bare.eventsPerSecond)} | ${pr.batches} (${fmtInt(pr.meanBatch)} / ${fmtInt(pr.maxBatch)}) | ${fmtMs(pr.meanHandlerMs)} | ${Math.round(pr.handlerShare * 100)} % | ${pr.cpu.processes.bench} % |
| bare multi-row INSERT | ${fmtInt(p.bare.eventsPerSecond)} | 100 % | ${fmtInt(p.bare.batchSize)} rows per statement | | | |
| prototype: projector with the raw events insert | ${fmtInt(pt.eventsPerSecond)} | ${fmtRatio(pt.eventsPerSecond, p.bare.eventsPerSecond)} | ${pt.batches} (${fmtInt(pt.meanBatch)} / ${fmtInt(pt.maxBatch)}) | ${fmtMs(pt.meanHandlerMs)} | ${Math.round(pt.handlerShare * 100)} % | ${pt.cpu.processes.bench} % |
| prototype + fetches of ${BIG_FETCH >> 20} MiB per partition | ${fmtInt(pb.eventsPerSecond)} | ${fmtRatio(pb.eventsPerSecond, p.bare.eventsPerSecond)} | ${pb.batches} (${fmtInt(pb.meanBatch)} / ${fmtInt(pb.maxBatch)}) | ${fmtMs(pb.meanHandlerMs)} | ${Math.round(pb.handlerShare * 100)} % | ${pb.cpu.processes.bench} % |

Consumer group join + first fetch: ${pr.joinSeconds.toFixed(1)} s (not counted). The prototype is the real projector
(\`startProjection\`, \`writeBatch\`, \`KafkaBus\`) reading the same topic with a new consumer group, with only
\`tx.event.createManyAndReturn\` replaced by one \`INSERT … SELECT FROM jsonb_to_recordset($1) … ON CONFLICT (id)
DO NOTHING RETURNING id\` (\`bench/lib/raw-event-insert.ts\`); the second prototype also sets the kafkajs consumer's
\`maxBytesPerPartition\` to ${BIG_FETCH >> 20} MiB (\`maxBytes\` ${(4 * BIG_FETCH) >> 20} MiB) instead of the 1 MiB default.

Each step alone, without Kafka, on the first ${fmtInt(p.options.decomposeRecords)} records (same batch size, one worker per partition):

| step | events/s |
| --- | ---: |
| \`decodeRecord\` (JSON.parse, CloudEvent + AgentEvent zod parse, NUL strip), one core | ${fmtInt(p.parts.decodePerSecond)} |
| \`writeBatch\` as shipped (Prisma interactive transaction, \`createManyAndReturn\`, session/run upserts) | ${fmtInt(p.parts.writeBatchPerSecond)} |
| \`writeBatch\` with the raw events insert | ${fmtInt(p.parts.rawWritePerSecond)} |
| bare multi-row INSERT (above) | ${fmtInt(p.bare.eventsPerSecond)} |

Where the CPU goes in \`writeBatch\` as shipped (profile of the benchmark process during that step):

${profileTable(p.writeProfile.packages, 8)}

Where the CPU goes in the prototype (profile of the benchmark process during a third, untimed drain):

${profileTable(p.prototypeProfile.packages, 10)}

${profileTable(p.prototypeProfile.functions, 12)}`);

  out.push(`
### 3. Visibility latency

Stack from \`test/support/stack.ts\` (\`startTestStack\`): fresh database, gateway and api in the benchmark
process, projector as a child process (as shipped: \`services/projector/src/main.ts\`; prototype:
\`bench/lib/projector-main.ts\` = the same projection with the raw events insert). Background load: an open
loop posting batches of ${r.visibility[0]?.options.batchSize ?? ''} realistic events on a fixed schedule (${fmtInt(r.visibility[0]?.options.eventsPerSecond ?? 0)} events/s offered, at most
${r.visibility[0]?.options.maxInFlight ?? ''} requests in flight). After ${(r.visibility[0]?.options.warmupMs ?? 0) / 1000} s, ${r.visibility[0]?.options.probes ?? ''} probes, one every ${r.visibility[0]?.options.probeIntervalMs ?? ''} ms: each is one
\`agent.custom\` event in a session of its own, sent alone in a \`POST /v1/events\`. **Measured**: from the
probe's 202 (the gateway has it in Kafka) to the arrival of the first answer of
\`GET /v1/events?type=agent.custom\` on the api that lists it (one poller, next poll ${r.visibility[0]?.options.pollMs ?? ''} ms after the previous
answer) — an upper bound; the lower bound is the start of that poll. The resolution is the poll period.

| projector | accepted events/s | skipped batches | probes seen | p50 | p95 | max | lower bound p50 / p95 | poll period | p50 first → last quarter | backlog when the probes ended | load POST p50 / p95 | CPU benchmark process / projector |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const v of r.visibility) {
    const cpu = Object.values(v.cpu.processes);
    out.push(
      `| ${v.options.projector === 'shipped' ? 'as shipped' : 'prototype (raw events insert)'} | ${fmtInt(v.acceptedPerSecond)} | ${v.skippedBatches} | ${v.probesSeen} / ${v.probesSent} | ${latency(v.p50Ms, v.options.settleMs)} | ${latency(v.p95Ms, v.options.settleMs)} | ${latency(v.maxMs, v.options.settleMs)} | ${fmtMs(v.lowerP50Ms)} / ${fmtMs(v.lowerP95Ms)} | ${fmtMs(v.pollPeriodMs)} | ${fmtMs(v.firstQuarterP50Ms)} → ${fmtMs(v.lastQuarterP50Ms)} | ${fmtInt(v.backlogAtEnd)} events | ${fmtMs(v.loadPostP50Ms)} / ${fmtMs(v.loadPostP95Ms)} | ${cpu.map((c) => `${c} %`).join(' / ')} |`,
    );
  }
  return out.join('\n');
}

/**
 * Writes `section` between the ingest markers of `file`: replaces the previous section, or appends
 * one; creates the file with its header when missing. Text outside the markers is kept.
 */
export function writeIngestSection(file: string, section: string): void {
  const block = `${START}\n${section}\n${END}`;
  if (!existsSync(file)) {
    writeFileSync(file, `${FILE_HEADER}\n${block}\n`);
    return;
  }
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  writeFileSync(
    file,
    a >= 0 && b > a
      ? text.slice(0, a) + block + text.slice(b + END.length)
      : `${text.trimEnd()}\n\n${block}\n`,
  );
}
