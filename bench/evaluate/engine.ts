import { createEngine, type Engine, type EvaluationInput } from '@agent-warden/policy';
import { median } from '../lib/stats';
import { contextFor, generatePolicies, rng, toolNames, type ToolCall } from './policies';
import { provenanceFor } from './provenance';

/** One row of the engine table. */
export interface EngineRow {
  policies: number;
  /** Median µs per `evaluate` (monitor mode) over the timed runs. */
  usPerEval: number;
  /** Lowest and highest run. */
  minUs: number;
  maxUs: number;
  /** Share of inputs with at least one matched policy. */
  matchedShare: number;
  buildMs: number;
}

/** Results of the engine part. */
export interface EngineResult {
  inputs: number;
  runMs: number;
  repeats: number;
  rows: EngineRow[];
}

let sink = 0;

function timedRun(engine: Engine, inputs: EvaluationInput[], count: number): number {
  const t0 = process.hrtime.bigint();
  for (let k = 0; k < count; k++)
    sink += engine.evaluate(inputs[k % inputs.length]!, 'monitor').matchedGuardrails.length;
  return Number(process.hrtime.bigint() - t0) / 1000 / count;
}

/**
 * µs per evaluation of `createEngine` (`@agent-warden/policy`, the gateway's engine with its tool
 * index) with each size of generated policy set, over every real tool call of the trajectories
 * (shuffled, with a drawn environment and risk level). Per size: warm-up and calibration to runs
 * of about `runMs`, then `repeats` timed runs; the median is reported.
 */
export function benchEngine(calls: ToolCall[], sizes: number[], runMs = 500, repeats = 5): EngineResult {
  const r = rng(7);
  const inputs: EvaluationInput[] = calls.map((c) => ({
    ...contextFor(r),
    tool: { name: c.tool },
    arguments: c.args,
    provenance: provenanceFor(c, r),
    agent: { key: 'bench-agent' },
  }));
  for (let k = inputs.length - 1; k > 0; k--) {
    const j = r.int(k + 1);
    [inputs[k], inputs[j]] = [inputs[j]!, inputs[k]!];
  }
  const rows: EngineRow[] = [];
  for (const n of sizes) {
    const policies = generatePolicies(n, toolNames(calls));
    const t0 = process.hrtime.bigint();
    const engine = createEngine(policies);
    const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
    let matched = 0;
    for (const input of inputs)
      if (engine.evaluate(input, 'monitor').matchedGuardrails.length > 0) matched += 1;
    let count = 2_000;
    while (timedRun(engine, inputs, count) * count < runMs * 1000) count *= 2;
    const samples = Array.from({ length: repeats }, () => timedRun(engine, inputs, count));
    rows.push({
      policies: n,
      usPerEval: median(samples),
      minUs: Math.min(...samples),
      maxUs: Math.max(...samples),
      matchedShare: matched / inputs.length,
      buildMs,
    });
  }
  if (sink < 0) process.stderr.write(String(sink)); // keeps the results alive
  return { inputs: inputs.length, runMs, repeats, rows };
}
