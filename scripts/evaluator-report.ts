/**
 * Runs the model evaluator (@agent-warden/intelligence `createSessionEvaluator`) over the shared
 * trajectories, as the replay would send them, and prints a markdown report: per source, the
 * verdicts; on tau-bench, how many failed sessions (reward 0) got a cause from the model and how
 * many succeeded ones (reward 1) were judged failed; then every judged tau-bench failure with its
 * causes, for the hand check of docs/intelligence.md "The model evaluator". The report reads the
 * labels to measure; the model never sees them (nor the tau-bench scenario, which the transcript
 * leaves out when user messages were logged).
 *
 * Usage: `WARDEN_LLM_EVALUATOR=on OPENAI_BASE_URL=… WARDEN_LLM_MODEL=… npm run intelligence:evaluate --
 * [--source tau-bench|agentdojo|swe-agent] [--ids id,id,…] [--limit N] [--concurrency N] [--out file.md]`.
 * Needs a model endpoint; none is reachable on the development machine (docs/intelligence.md).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import {
  createSessionEvaluator,
  evaluatorConfigFromEnv,
  type EvaluatorConfig,
  type SessionEvaluation,
} from '@agent-warden/intelligence';
import { createLogger } from '@agent-warden/observability';
import { loadTrajectories, type Trajectory } from '../libs/intelligence/test/support/trajectory-input';
import { replayedInput } from './replayed-input';

/** The shared files by the name `--source` takes. */
export const SOURCES = {
  'tau-bench': 'tau_bench_airline.jsonl',
  agentdojo: 'agentdojo.jsonl',
  'swe-agent': 'swe_agent.jsonl',
} as const;
export type SourceName = keyof typeof SOURCES;

/** Options of {@link evaluatorReport}. */
export interface EvaluatorReportOptions {
  config: EvaluatorConfig;
  /** Sources to judge; default all three. */
  sources?: SourceName[];
  /** Only these trajectory ids (across sources). */
  ids?: string[];
  /** At most this many sessions per source. */
  limit?: number;
  /** Model calls at a time; default 4. */
  concurrency?: number;
}

/** One judged session. */
interface Judged {
  t: Trajectory;
  evaluation: SessionEvaluation | null;
}

async function judgeAll(
  trajectories: Trajectory[],
  evaluate: (t: Trajectory) => Promise<SessionEvaluation | null>,
  concurrency: number,
): Promise<Judged[]> {
  const out: Judged[] = new Array(trajectories.length);
  let next = 0;
  const worker = async () => {
    while (next < trajectories.length) {
      const i = next++;
      out[i] = { t: trajectories[i]!, evaluation: await evaluate(trajectories[i]!) };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return out;
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${Math.round((100 * n) / d)} %`);
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

/**
 * Judges the chosen sessions and returns the report as markdown. Sessions whose model call failed
 * are counted as `no answer`.
 * @throws Error when the evaluator cannot be created (no endpoint in `config`)
 */
export async function evaluatorReport(o: EvaluatorReportOptions): Promise<string> {
  const logger = createLogger({ name: 'evaluator-report', level: 'warn' });
  const evaluator = createSessionEvaluator(o.config, logger);
  if (!evaluator) throw new Error('no model endpoint: set OPENAI_BASE_URL or OPENAI_API_KEY');
  const md: string[] = [
    `# Model evaluator on the shared trajectories (model \`${evaluator.model}\`)`,
    '',
    '| source | sessions | achieved | failed | unclear | no answer | with a cause item |',
    '|---|---|---|---|---|---|---|',
  ];
  const tauRows: string[] = [];
  const tau = { failed: 0, failedCause: 0, ok: 0, okWarned: 0 };
  for (const source of o.sources ?? (Object.keys(SOURCES) as SourceName[])) {
    const file = SOURCES[source];
    let chosen = loadTrajectories(file);
    if (o.ids) chosen = chosen.filter((t) => o.ids!.includes(t.trajectory_id));
    if (o.limit !== undefined) chosen = chosen.slice(0, o.limit);
    if (chosen.length === 0) continue;
    const judged = await judgeAll(
      chosen,
      (t) => evaluator.evaluate(replayedInput(file, t)),
      o.concurrency ?? 4,
    );
    const count = (p: (j: Judged) => boolean) => judged.filter(p).length;
    md.push(
      `| ${source} | ${judged.length} | ${count((j) => j.evaluation?.verdict === 'achieved')} | ${count((j) => j.evaluation?.verdict === 'failed')} | ${count((j) => j.evaluation?.verdict === 'unclear')} | ${count((j) => !j.evaluation)} | ${count((j) => (j.evaluation?.items.length ?? 0) > 0)} |`,
    );
    if (source !== 'tau-bench') continue;
    for (const j of judged) {
      const reward = (j.t.labels as { reward?: number }).reward;
      const items = j.evaluation?.items ?? [];
      if (reward === 0) {
        tau.failed += 1;
        if (items.length > 0) tau.failedCause += 1;
        tauRows.push(
          `| \`${j.t.trajectory_id.replace(/^.*\/(task_\d+\/trial_\d+)$/, '$1')}\` | ${j.evaluation?.verdict ?? 'no answer'} | ${cell(items.map((i) => i.detail.replace(/ Judged by the model.*$/, '') + ` (${/cause: (\w+)/.exec(i.detail)?.[1] ?? ''})`).join(' · ') || '–')} |  |`,
        );
      } else if (reward === 1) {
        tau.ok += 1;
        if (j.evaluation?.verdict === 'failed') tau.okWarned += 1;
      }
    }
  }
  if (tau.failed + tau.ok > 0)
    md.push(
      '',
      `tau-bench: failed sessions (reward 0) with a cause from the model: **${tau.failedCause} of ${tau.failed} (${pct(tau.failedCause, tau.failed)})**; ` +
        `succeeded sessions (reward 1) judged failed: **${tau.okWarned} of ${tau.ok} (${pct(tau.okWarned, tau.ok)})**. ` +
        'Whether each cause is the right one is for the hand check below (fill in the last column).',
      '',
      '| session | verdict | causes (kind) | correct? |',
      '|---|---|---|---|',
      ...tauRows,
    );
  return `${md.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      source: { type: 'string', multiple: true },
      ids: { type: 'string' },
      limit: { type: 'string' },
      concurrency: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const config = evaluatorConfigFromEnv();
  if (!config) throw new Error('set WARDEN_LLM_EVALUATOR=on and OPENAI_BASE_URL or OPENAI_API_KEY');
  for (const s of values.source ?? [])
    if (!(s in SOURCES)) throw new Error(`--source must be one of ${Object.keys(SOURCES).join(', ')}`);
  const report = await evaluatorReport({
    config,
    ...(values.source ? { sources: values.source as SourceName[] } : {}),
    ...(values.ids ? { ids: values.ids.split(',').map((x) => x.trim()) } : {}),
    ...(values.limit ? { limit: Number(values.limit) } : {}),
    ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
  });
  if (values.out) fs.writeFileSync(values.out, report);
  else process.stdout.write(report);
}

if (require.main === module)
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
