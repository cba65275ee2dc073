import type { MachineInfo } from '../lib/env';
import { fmtInt } from '../lib/stats';
import type { EngineResult } from './engine';
import type { HttpBenchResult } from './http';
import type { OpenLoopResult } from './open-loop';

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

function httpRow(name: string, r: OpenLoopResult): string {
  return `| ${name} | ${fmtInt(r.requests)} | ${r.errors} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.serviceP99)} | ${r.maxInFlight} |`;
}

/** The markdown section (without its markers). */
export function renderEvaluateSection(r: EvaluateResults): string {
  const m = r.machine;
  const e = r.engine;
  const h = r.http;
  const at100 = e.rows.find((row) => row.policies === 100);
  const ratio = h.evaluate.p99 / h.bare.p99;
  const lines = [
    '## Guardrail evaluation (`bench:evaluate`)',
    '',
    `Run ${r.startedAt.toISOString()} with \`${r.command}\` (${Math.round(r.seconds)} s).`,
    `Machine: ${m.nproc} vCPU (nproc), ${m.cpuModel}, ${m.memoryGiB} GiB; Node ${m.node}; Kafka ${m.kafka}; PostgreSQL ${m.postgres}.`,
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
    `The real gateway in a child process (\`bench/evaluate/gateway-main.ts\`: the parts \`start()\` builds, behind an outer express app that adds \`POST /bench/bare\`), fresh database with ${h.options.policies} generated policies, one identified agent. Load from this process: open loop at a fixed ${fmtInt(h.options.rate)} requests/s (Node's fetch, keep-alive), ${h.options.warmupMs / 1000} s warm-up then ${h.options.durationMs / 1000} s measured; latency counted from each request's scheduled send time, so a slow answer cannot hold back later sends (no coordinated omission). The sender's 1 ms timer adds up to 1 ms to every figure, alike for both endpoints. \`/v1/guardrails/evaluate\`: monitor mode, ${fmtInt(h.options.bodies)} pre-built bodies from the real tool calls (mean ${Math.round(h.meanBodyBytes)} B), ${Math.round(h.matchedShare * 100)} % of them match a policy. **Each evaluation also awaits the Kafka write of its evaluation record** (\`guardrail-evaluations\`, acks -1) before answering, so its latency includes a Kafka round trip. The bare endpoint (\`express.json()\`, \`{ok:true}\`) gets the same bodies from the same load, on the same server.`,
    '',
    '| endpoint | requests measured | errors | p50 | p95 | p99 | max | p99 from send | max in flight |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    httpRow('`POST /v1/guardrails/evaluate`', h.evaluate),
    httpRow('`POST /bench/bare`', h.bare),
    '',
    `p99 ratio evaluate / bare: ${Number.isFinite(ratio) ? ratio.toFixed(1) : '–'}×. Target: p99 under 5 ms at 1,000 requests/s on loopback — ${verdict(h.evaluate.p99 < 5 && h.evaluate.errors === 0)}.` +
      (h.evaluate.firstError ? ` First error: ${h.evaluate.firstError}` : ''),
  ];
  return lines.join('\n');
}
