import type { MachineInfo } from '../lib/env';
import { fmtInt, fmtMs } from '../lib/stats';
import type { Scenario } from './scenarios';
import type { Seeded } from './seed';

/** Latency of one scenario over its measured runs (ms, end to end over HTTP on loopback). */
export interface ScenarioResult extends Scenario {
  /** Items (or versions) in the last answer. */
  rows: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** 1-minute load average right after the scenario. */
  load1: number;
}

/** Everything the `bench:api` section shows. */
export interface ApiBenchReport {
  machine: MachineInfo;
  command: string;
  date: Date;
  seeded: Seeded;
  runs: number;
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
  results: ScenarioResult[];
}

/** Target of issue 6 for the sessions list (ms). */
export const SESSIONS_TARGET_MS = 200;

/** Markdown of the `bench:api` section of docs/benchmarks.md. */
export function renderApiSection(r: ApiBenchReport): string {
  const m = r.machine;
  const sessions = r.results.filter((x) => x.group === 'sessions');
  const worst = Math.max(...sessions.map((x) => x.p95));
  const rows = r.results
    .map(
      (x) =>
        `| ${x.group} | ${x.name} | ${x.rows} | ${fmtMs(x.p50)} | ${fmtMs(x.p95)} | ${fmtMs(x.p99)} | ${fmtMs(x.max)} | ${x.load1} |`,
    )
    .join('\n');
  return `## Dashboard read API (\`bench:api\`)

${r.date.toISOString().slice(0, 16).replace('T', ' ')} UTC, \`${r.command}\`. A fresh database seeded with SQL
(bench/api/seed.ts): ${fmtInt(r.seeded.counts.sessions)} sessions over 30 days (20 agents × 3 versions),
${fmtInt(r.seeded.counts.events)} events, ${fmtInt(r.seeded.counts.evaluations)} guardrail evaluations,
${fmtInt(r.seeded.counts.approvals)} approvals (200 pending); seeding took ${(r.seeded.ms / 1000).toFixed(0)} s.
The api runs in the benchmark's process (\`createApiApp\`, Prisma over \`pg\`); each request shape is sent
${r.runs} times one after another (after 3 unmeasured), as one person's dashboard does; latency is end to end
over HTTP on loopback, including the JSON. Pages hold 50 items.

| | |
|---|---|
| machine | ${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, shared with other people's test runs |
| software | Node ${m.node}, PostgreSQL ${m.postgres} |
| load average (1/5/15 min) | before ${r.loadBefore.join(' / ')}, after ${r.loadAfter.join(' / ')} |

**Sessions list: worst p95 over all filters ${fmtMs(worst)} — target ${SESSIONS_TARGET_MS} ms at 100k sessions:
${worst <= SESSIONS_TARGET_MS ? 'met' : 'NOT met'}.**

| group | request | rows | p50 | p95 | p99 | max | load (1 min) after |
|---|---|---|---|---|---|---|---|
${rows}

How the filters stay fast is in docs/decisions.md ("Sessions list filters"). The load column is the
machine's 1-minute load average right after each request shape: on this 2-core machine other people's
tests ran at the same time, so single slow requests (max) follow the load more than the query.`;
}
