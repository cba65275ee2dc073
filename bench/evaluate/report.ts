import type { MachineInfo } from '../lib/env';
import { fmtInt, median } from '../lib/stats';
import type { EngineResult } from './engine';
import type { HttpBenchResult, WindowLoad } from './http';
import type { OpenLoopResult } from './open-loop';

/** How the load is made, per load generator (`--load`). */
const LOAD_NODE =
  'Load from this process: open loop at a fixed rate (`node:http` client with a keep-alive agent of up to 512 sockets; cheaper per request than `fetch`, so the load generator leaves more CPU to the gateway), ';
const LOAD_VEGETA =
  'Load from vegeta (`--load vegeta`, `bench/evaluate/vegeta.ts`: the Go constant-rate generator in its own process, keep-alive, 16–512 workers, the same bodies as JSON targets), so no V8 pause of a Node.js load generator counts against the gateway; ';
const LATENCY_NODE =
  "latency counted from each request's scheduled send time, so a slow answer cannot hold back later sends (no coordinated omission). The sender's 1 ms timer adds up to 1 ms to every figure, alike for both endpoints. ";
const LATENCY_VEGETA =
  "latency as vegeta measures it, from each request's send (at its scheduled time: vegeta adds workers rather than wait for answers) to the end of its answer; *p99 from send* is the same figure and *max in flight* is not reported. ";

/** Everything the `bench:evaluate` section reports. */
export interface EvaluateResults {
  startedAt: Date;
  command: string;
  machine: MachineInfo;
  loadAfter: [number, number, number];
  waitedS: number;
  loadLimit: number;
  seconds: number;
  engine: EngineResult;
  http: HttpBenchResult;
}

const ms = (n: number) => (!Number.isFinite(n) ? '–' : n < 100 ? `${n.toFixed(2)} ms` : `${fmtInt(n)} ms`);
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} %` : '–');
const TARGET_MS = 5;
const ROUND_WARMUP_S = 0.3;
const TARGET_RATE = 1_000;

const rounds = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const f = (n: number | undefined) => (n === undefined ? '–' : n < 10 ? n.toFixed(1) : fmtInt(n));
  return `${f(sorted[0])} – ${f(median(xs))} – ${f(sorted[sorted.length - 1])} ms`;
};

function httpRow(rate: number, name: string, r: OpenLoopResult, l: WindowLoad, roundP99: number[]): string {
  return `| ${fmtInt(rate)} | ${name} | ${fmtInt(r.requests)} | ${r.errors} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${rounds(roundP99)} | ${ms(r.max)} | ${ms(r.serviceP99)} | ${Number.isNaN(r.maxInFlight) ? '—' : r.maxInFlight} | ${pct(l.machineBusy)} | ${pct(l.gatewayCpu)} | ${pct(l.benchCpu)} | ${pct(l.restCpu)} | ${l.load1} |`;
}

const meets = (r: OpenLoopResult) => r.p99 < TARGET_MS && r.errors === 0;

/** What the figures at the target rate say, given how the bare endpoint did at the same rate. */
function httpVerdict(h: HttpBenchResult, nproc: number): string[] {
  const out: string[] = [];
  const at = h.rates.find((x) => x.rate === TARGET_RATE);
  if (at) {
    const ratio = at.evaluate.p99 / at.bare.p99;
    out.push(
      `At ${fmtInt(TARGET_RATE)} requests/s: evaluate p99 ${ms(at.evaluate.p99)}, bare p99 ${ms(at.bare.p99)}, ratio evaluate / bare ${Number.isFinite(ratio) ? ratio.toFixed(2) : '–'}×. ` +
        `Target: p99 under ${TARGET_MS} ms at ${fmtInt(TARGET_RATE)} requests/s on loopback — ${verdict(meets(at.evaluate))}.` +
        (at.evaluate.firstError ? ` First error: ${at.evaluate.firstError}` : ''),
    );
    if (!meets(at.evaluate) && !meets(at.bare)) {
      const rest = Math.max(at.evaluateLoad.restCpu, at.bareLoad.restCpu);
      out.push(
        '',
        `**The bare endpoint misses the same bound at this rate** (p99 ${ms(at.bare.p99)}), so this run says more about the machine than about the gateway: ` +
          `the 1-minute load average was ${at.evaluateLoad.load1} (evaluate window) and ${at.bareLoad.load1} (bare window) on ${nproc} vCPU, ` +
          `and processes other than the gateway and the load generator used up to ${pct(rest)} of one core. Compare the two endpoints at a rate the machine sustained (below).`,
      );
    }
  }
  const sustained = h.rates.filter((x) => meets(x.bare)).sort((a, b) => b.rate - a.rate)[0];
  if (sustained && sustained.rate !== TARGET_RATE) {
    const ratio = sustained.evaluate.p99 / sustained.bare.p99;
    out.push(
      '',
      `Highest rate of this run at which the bare endpoint kept p99 under ${TARGET_MS} ms: ${fmtInt(sustained.rate)} requests/s — evaluate p99 ${ms(sustained.evaluate.p99)} (${meets(sustained.evaluate) ? 'under' : '**not** under'} ${TARGET_MS} ms), bare ${ms(sustained.bare.p99)}, ratio ${Number.isFinite(ratio) ? ratio.toFixed(2) : '–'}×.`,
    );
  }
  return out;
}

function profileLines(h: HttpBenchResult): string[] {
  const p = h.profile;
  if (!p) return [];
  const table = (rows: { name: string; share: number }[]) => [
    '| self time | share |',
    '| --- | ---: |',
    ...rows.slice(0, 12).map((x) => `| ${x.name} | ${(x.share * 100).toFixed(1)} % |`),
  ];
  return [
    '',
    `Where the gateway's CPU goes: V8 sampling profile of the gateway process during an extra, unmeasured ${h.options.profileMs / 1000} s run of the evaluate endpoint at ${fmtInt(Math.max(...h.options.rates))} requests/s (self time as a share of the samples; "(idle)" = event loop waiting for I/O).`,
    '',
    ...table(p.packages),
    '',
    ...table(p.functions),
  ];
}

/** The markdown section (without its markers). */
export function renderEvaluateSection(r: EvaluateResults): string {
  const m = r.machine;
  const e = r.engine;
  const h = r.http;
  const at100 = e.rows.find((row) => row.policies === 100);
  const rec = h.recorder;
  const lines = [
    '## Guardrail evaluation (`bench:evaluate`)',
    '',
    `Run ${r.startedAt.toISOString()} with \`${r.command}\` (${Math.round(r.seconds)} s).`,
    `Machine: ${m.nproc} vCPU (nproc), ${m.cpuModel}, ${m.memoryGiB} GiB; Node ${m.node}; Kafka ${m.kafka}; PostgreSQL ${m.postgres}. The machine is shared with other people's work; the load of each measured window is in the table.`,
    `Load average (1/5/15 min): ${m.load.join(' / ')} before, ${r.loadAfter.join(' / ')} after` +
      ` (waited ${r.waitedS} s for the 1-minute load to fall below ${r.loadLimit}` +
      `${m.load[0] >= r.loadLimit ? '; it did not, so the figures were taken on a busy machine' : ''}).`,
    '',
    '### Engine',
    '',
    `\`createEngine\` of \`@agent-warden/policy\` (tool index on), monitor mode, in this process; inputs: the ${fmtInt(e.inputs)} real tool calls of the shared trajectories (shuffled, with a drawn environment and risk level); generated policies (tool eq / in, argument thresholds, regex on \`arguments.command\`, tool-name globs, risk and environment conditions). Median of ${e.repeats} runs of ~${e.runMs} ms each after a warm-up.`,
    '',
    '| policies | µs / evaluation (median) | min – max of runs | inputs with a match | build ms |',
    '|---:|---:|---:|---:|---:|',
    ...e.rows.map(
      (row) =>
        `| ${fmtInt(row.policies)} | ${row.usPerEval.toFixed(2)} | ${row.minUs.toFixed(2)} – ${row.maxUs.toFixed(2)} | ${Math.round(row.matchedShare * 100)} % | ${row.buildMs.toFixed(1)} |`,
    ),
    '',
    `Target: under 5 µs per evaluation at 100 policies — ${verdict(!!at100 && at100.usPerEval < 5)}.`,
    '',
    '### HTTP endpoint',
    '',
    `The real gateway in a child process (\`bench/evaluate/gateway-main.ts\`: \`start()\` of \`@agent-warden/gateway\` with one extra route, \`POST /bench/bare\`, on the same server), fresh database with ${h.options.policies} generated policies, one identified agent. ${h.options.vegeta ? LOAD_VEGETA : LOAD_NODE}${h.options.durationMs / 1000} s measured per endpoint and rate, in ${h.options.rounds} interleaved rounds of ${h.options.durationMs / h.options.rounds / 1000} s (evaluate, then bare, then evaluate again…; ${h.options.warmupMs / 1000} s warm-up before the first round, ${ROUND_WARMUP_S} s before the others), so that both endpoints see the same background load; percentiles are over the samples of all rounds; ${h.options.vegeta ? LATENCY_VEGETA : LATENCY_NODE}\`/v1/guardrails/evaluate\`: monitor mode, ${fmtInt(h.options.bodies)} pre-built bodies from the real tool calls, each with a \`provenance\` of 3–4 argument entries (one tool source each when from tool output) and a session part (\`bench/evaluate/provenance.ts\`; mean body ${Math.round(h.meanBodyBytes)} B), ${Math.round(h.matchedShare * 100)} % of them match a policy. Each evaluation's record is handed to the gateway's \`EvaluationRecorder\` and published to Kafka (\`guardrail-evaluations\`, acks -1) in batches after the answer (every 20 ms, the default \`WARDEN_EVALUATION_FLUSH_MS\`), from a worker thread of the gateway process with \`@platformatic/kafka\` (docs/decisions.md "Evaluations are recorded off the request path", "Evaluation records are published from a worker thread", "The evaluation thread publishes with \`@platformatic/kafka\`, every 20 ms"); the *gateway* CPU column includes that thread. The bare endpoint (\`express.json()\`, \`{ok:true}\`) gets the same bodies from the same load, on the same server.`,
    '',
    `Machine load per measured window: *machine busy* = % of all ${h.nproc} cores busy (/proc/stat); *gateway* and *load generator* = % of one core used by that process; *rest* = the other processes (Kafka and PostgreSQL, which also serve other people, and other people's work) in % of one core = machine busy × cores − gateway − load generator; CPU figures are the mean of the rounds; *load 1 min* = the highest 1-minute load average at the end of a round.`,
    '',
    '| req/s | endpoint | requests measured | errors | p50 | p95 | p99 | p99 of the rounds (min – median – max) | max | p99 from send | max in flight | machine busy | gateway | load generator | rest | load 1 min |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...h.rates.flatMap((x) => [
      httpRow(x.rate, '`POST /v1/guardrails/evaluate`', x.evaluate, x.evaluateLoad, x.evaluateRoundP99),
      httpRow(x.rate, '`POST /bench/bare`', x.bare, x.bareLoad, x.bareRoundP99),
    ]),
    '',
    ...httpVerdict(h, h.nproc),
    '',
    rec
      ? `Evaluation records: ${fmtInt(h.evaluationsAnswered)} evaluations answered 200; the gateway's recorder reported ${fmtInt(rec.published)} records published to Kafka, ${fmtInt(rec.buffered)} still buffered, ${fmtInt(rec.rejected)} refused (503), ${fmtInt(rec.failedFlushes)} failed publishes (\`GET /ready\` after the runs).`
      : 'Evaluation records: the gateway did not report recorder counters.',
    ...profileLines(h),
  ];
  return lines.join('\n');
}
