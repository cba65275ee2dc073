import type { MachineInfo } from '../lib/env';
import { fmtInt, fmtMs } from '../lib/stats';
import type { Measured } from './measure';
import type { TableSize } from './sizes';

/** What the retention job did at one checkpoint. */
export interface RetentionFigure {
  ms: number;
  sessions: number;
  /** Rows deleted over every table. */
  rows: number;
  events: number;
}

/** The figures of one checkpoint. */
export interface Checkpoint {
  /** Events loaded in all. */
  events: number;
  sessions: number;
  evaluations: number;
  /** The load since the previous checkpoint: events, wall-clock ms, events/s. */
  segment: { events: number; ms: number; rate: number };
  analyzeMs: number;
  measured: Measured[];
  retention: RetentionFigure;
  sizes: TableSize[];
}

/** Everything the `bench:scale` section shows. */
export interface ScaleReport {
  machine: MachineInfo;
  command: string;
  date: Date;
  tookS: number;
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
  prisma: string;
  total: number;
  batch: number;
  writers: number;
  days: number;
  retentionDays: number;
  bigSessionEvents: number;
  http: { warmup: number; runs: number };
  backtest: { warmup: number; runs: number };
  checkpoints: Checkpoint[];
}

/** `12.3 M` / `450 k` for a count of events. */
function short(n: number): string {
  return n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(1)} M` : `${Math.round(n / 1000)} k`;
}

function bytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
  return `${Math.round(n / 1024 ** 2).toLocaleString('en-US')} MiB`;
}

/** `last ÷ first` as `×1.9`; `–` when undefined. */
function growth(first: number, last: number): string {
  return first > 0 && Number.isFinite(last) ? `×${(last / first).toFixed(1)}` : '–';
}

/** Markdown of the `bench:scale` section of docs/benchmarks.md. */
export function renderScaleSection(r: ScaleReport): string {
  const m = r.machine;
  const cps = r.checkpoints;
  const first = cps[0]!;
  const last = cps[cps.length - 1]!;
  const head = `| | ${cps.map((c) => short(c.events)).join(' | ')} | ${short(last.events)} ÷ ${short(first.events)} |`;
  const rule = `| --- | ${cps.map(() => '---:').join(' | ')} | ---: |`;
  const ingest = `| ingest, events/s over the segment (${cps.map((c) => short(c.segment.events)).join(', ')}) | ${cps
    .map((c) => fmtInt(c.segment.rate))
    .join(' | ')} | ${growth(first.segment.rate, last.segment.rate)} |`;
  const key = (x: Measured) => `${x.scenario.group}: ${x.scenario.name}`;
  const scenarioRows = last.measured.map((x) => {
    const at = cps.map((c) => c.measured.find((y) => key(y) === key(x)));
    const cells = at.map((y) => (y ? `${fmtMs(y.p50)} (${fmtMs(y.max)})` : '–'));
    const rows = at[at.length - 1]?.rows ?? 0;
    const extra =
      x.scenario.group === 'backtest'
        ? ` — calls scanned ${at.map((y) => fmtInt(y?.rows ?? NaN)).join(' / ')}${at[at.length - 1]?.truncated ? ' (stopped at the cap)' : ''}`
        : ` — ${rows} rows`;
    return `| ${key(x)}${extra} | ${cells.join(' | ')} | ${growth(at[0]?.p50 ?? NaN, x.p50)} |`;
  });
  const retention = `| retention job (${r.retentionDays}-day window, retention project): time — sessions / rows deleted | ${cps
    .map((c) => `${fmtMs(c.retention.ms)} — ${fmtInt(c.retention.sessions)} / ${fmtInt(c.retention.rows)}`)
    .join(' | ')} | ${growth(first.retention.ms, last.retention.ms)} |`;
  const retentionRate = `| retention, rows deleted per s | ${cps
    .map((c) => fmtInt((c.retention.rows / c.retention.ms) * 1000))
    .join(
      ' | ',
    )} | ${growth(first.retention.rows / first.retention.ms, last.retention.rows / last.retention.ms)} |`;
  const analyze = `| \`ANALYZE\` (whole database) | ${cps.map((c) => fmtMs(c.analyzeMs)).join(' | ')} | ${growth(first.analyzeMs, last.analyzeMs)} |`;

  const tables = [...new Set(last.sizes.filter((s) => s.totalBytes >= 8 * 1024 ** 2).map((s) => s.table))];
  const sizeOf = (c: Checkpoint, t: string) => c.sizes.find((s) => s.table === t);
  const sizeRows = tables.map((t) => {
    const at = cps.map((c) => sizeOf(c, t));
    return `| \`${t}\` | ${at.map((s) => (s ? `${bytes(s.totalBytes)} (indexes ${bytes(s.indexBytes)})` : '–')).join(' | ')} | ${growth(at[0]?.totalBytes ?? 0, at[at.length - 1]?.totalBytes ?? NaN)} |`;
  });
  const dbTotal = (c: Checkpoint) => c.sizes.reduce((a, s) => a + s.totalBytes, 0);
  sizeRows.push(
    `| all tables | ${cps.map((c) => bytes(dbTotal(c))).join(' | ')} | ${growth(dbTotal(first), dbTotal(last))} |`,
  );

  return `## Scale (\`npm run bench:scale\`)

| | |
| --- | --- |
| date | ${r.date.toISOString().slice(0, 16).replace('T', ' ')} UTC (run took ${fmtInt(r.tookS)} s) |
| command | \`${r.command}\` |
| machine | ${m.nproc} vCPU (\`nproc\`), ${m.memoryGiB} GiB RAM, ${m.cpuModel} (shared with other work) |
| software | Node ${m.node}, PostgreSQL ${m.postgres} (loopback), Prisma ${r.prisma} |
| load average (1/5/15 min) | before ${r.loadBefore.join(' / ')}, after ${r.loadAfter.join(' / ')} |

${fmtInt(r.total)} events made from the shared trajectories (\`bench/scale/generate.ts\`): every trajectory
cloned again and again as a new session with fresh UUIDv7 ids, with one \`agent.llm.called\` before each
assistant message; sessions start uniformly over the last ${r.days} days and are spread over 3 projects
(70 / 20 / 10 %), each with the trajectories' 44 agents × 3 versions. The first project is guarded: each
tool call is preceded by the client's \`agent.guardrail.evaluated\` event and has a guardrail evaluation
record (96 % allow, 2.5 % warn, 1 % block, 0.5 % require approval; a quarter with provenance). Its first
session holds exactly ${fmtInt(r.bigSessionEvents)} events. Loaded in batches of ${fmtInt(r.batch)} events (with their
evaluations) through \`writeBatch\` of \`@agent-warden/db\` — the projector's own write, so sessions, runs and
LLM calls are projected as in production — ${r.writers} batches in flight. At each checkpoint, after \`ANALYZE\`,
the read API (the api's \`createApiApp\` in the benchmark's process) is asked one request at a time, as a
person's dashboard does: ${r.http.runs} measured requests after ${r.http.warmup} unmeasured for each page, ${r.backtest.runs} for the
backtest; cells are **p50 (max)**, end to end over HTTP on loopback. Pages hold 50 items (the session page
500 events). Then the retention job (\`runRetention\`) runs once on the third project, whose window is
${r.retentionDays} days: it deletes the sessions of that project that ended more than ${r.retentionDays} days ago and
were loaded since the previous checkpoint.

At the end: ${fmtInt(last.sessions)} sessions, ${fmtInt(last.evaluations)} guardrail evaluations.

| measure | ${head.slice(4)}
${rule}
${ingest}
${scenarioRows.join('\n')}
${retention}
${retentionRate}
${analyze}

Size on disk (heap + TOAST + indexes, partitions included), tables over 8 MiB at the end:

| table | ${cps.map((c) => short(c.events)).join(' | ')} | ${short(last.events)} ÷ ${short(first.events)} |
${rule}
${sizeRows.join('\n')}`;
}
