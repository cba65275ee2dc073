/**
 * `npm run bench:provenance` — client-side cost of provenance (docs/provenance.md) per `withTool`:
 * one run filled with 10,000 events replayed from the shared trajectories (about 5,000 tool
 * results, read in place from `../shared/data/trajectories/*.jsonl` or `$WARDEN_TRAJECTORIES_DIR`),
 * then guarded `withTool` calls with the real arguments and results, with provenance on and off in
 * the same process against an in-process fake service (no network). Three rounds (on/off order
 * alternating); reports per round and the min and median over rounds. Waits (up to `--max-wait-s`,
 * default 120) for the 1-minute load average to fall below 1.5. Writes its section of
 * docs/benchmarks.md (unless `--no-write`) and prints it.
 *
 *   nice npm run bench:provenance [-- --no-write] [-- --calls 1000] [-- --max-wait-s 0]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROVENANCE_BOUNDS } from '../clients/typescript/src/provenance';
import { writeDocSection } from './lib/doc-section';
import { loadAverage, ROOT } from './lib/env';
import { median, sleep } from './lib/stats';
import { measureRound, type RoundFigures } from './provenance/measure';
import { loadWorkload } from './provenance/workload';

const ROUNDS = 3;
const LOAD_LIMIT = 1.5;

function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

async function waitForQuietMachine(maxMs: number): Promise<number> {
  const t0 = performance.now();
  while (loadAverage()[0] >= LOAD_LIMIT && performance.now() - t0 < maxMs) {
    log(`1-min load average ${loadAverage()[0]} ≥ ${LOAD_LIMIT}; waiting`);
    await sleep(10_000);
  }
  return Math.round((performance.now() - t0) / 1000);
}

const us = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'no-write': { type: 'boolean', default: false },
      calls: { type: 'string', default: '1000' },
      'max-wait-s': { type: 'string', default: '120' },
    },
  });
  const calls = Number(values.calls);
  const work = loadWorkload();
  log(
    `${work.tools.length} tool results, ${work.messages.length} messages, ${work.guarded.length} calls with arguments in ${work.files.join(', ')}`,
  );
  const waitedS = await waitForQuietMachine(Number(values['max-wait-s']) * 1000);
  const loadBefore = loadAverage();
  // Warm-up: both paths compiled before anything is timed.
  await measureRound(work, true, 50);
  await measureRound(work, false, 50);
  const rounds: Array<{ on: RoundFigures; off: RoundFigures }> = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const first = r % 2 === 0;
    const a = await measureRound(work, first, calls);
    const b = await measureRound(work, !first, calls);
    const on = first ? a : b;
    const off = first ? b : a;
    rounds.push({ on, off });
    log(
      `round ${r + 1}: guarded withTool ${us(on.guardedUsPerCall)} µs on / ${us(off.guardedUsPerCall)} µs off; ` +
        `fill ${us(on.fillUsPerTool)} / ${us(off.fillUsPerTool)} µs per tool result; match ${us(on.matchUsPerCall)} µs`,
    );
  }
  const section = render(rounds, { calls, waitedS, loadBefore, loadAfter: loadAverage(), work });
  process.stdout.write(`${section}\n`);
  if (!values['no-write']) writeDocSection(path.join(ROOT, 'docs/benchmarks.md'), 'provenance', section);
}

function render(
  rounds: Array<{ on: RoundFigures; off: RoundFigures }>,
  ctx: {
    calls: number;
    waitedS: number;
    loadBefore: number[];
    loadAfter: number[];
    work: ReturnType<typeof loadWorkload>;
  },
): string {
  const stat = (f: (r: { on: RoundFigures; off: RoundFigures }) => number) => {
    const v = rounds.map(f);
    return { min: Math.min(...v), median: median(v), all: v };
  };
  const rows: Array<[string, ReturnType<typeof stat>]> = [
    ['guarded `withTool`, provenance on (µs, mean per call)', stat((r) => r.on.guardedUsPerCall)],
    ['guarded `withTool`, provenance off', stat((r) => r.off.guardedUsPerCall)],
    [
      '**added per guarded `withTool`** (on − off)',
      stat((r) => r.on.guardedUsPerCall - r.off.guardedUsPerCall),
    ],
    ['guarded `withTool` p50, on', stat((r) => r.on.guardedP50Us)],
    ['guarded `withTool` p50, off', stat((r) => r.off.guardedP50Us)],
    ['**added at p50** (on − off)', stat((r) => r.on.guardedP50Us - r.off.guardedP50Us)],
    ['guarded `withTool` p99, on', stat((r) => r.on.guardedP99Us)],
    ['guarded `withTool` p99, off', stat((r) => r.off.guardedP99Us)],
    ['`provenanceOf` alone (the match), on', stat((r) => r.on.matchUsPerCall)],
    [
      '`provenanceOf`, heaviest arguments allowed (64 leaves, one of 4,096 chars)',
      stat((r) => r.on.heavyMatchUs),
    ],
    ['unguarded `withTool` while filling, on (records its result)', stat((r) => r.on.fillUsPerTool)],
    ['unguarded `withTool` while filling, off', stat((r) => r.off.fillUsPerTool)],
    ['**added per tool result recorded** (on − off)', stat((r) => r.on.fillUsPerTool - r.off.fillUsPerTool)],
  ];
  const ratio = stat((r) => r.on.guardedUsPerCall / r.off.guardedUsPerCall);
  const on = rounds[0]!.on;
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  const date = new Date().toISOString().slice(0, 10);
  const b = PROVENANCE_BOUNDS;
  return [
    '## Provenance in the TypeScript client (`bench:provenance`)',
    '',
    `Measured ${date} with \`nice npm run bench:provenance\` on ${os.availableParallelism()} × ${cpu}, ` +
      `${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}, shared with other work ` +
      `(1-minute load ${ctx.loadBefore[0]} before, ${ctx.loadAfter[0]} after; waited ${ctx.waitedS} s for a quieter machine).`,
    '',
    `**Setup.** One run filled with ${on.events.toLocaleString('en-US')} events replayed from the shared trajectories ` +
      `(${ctx.work.files.join(', ')}, read in place): user and assistant messages and ` +
      `${on.toolResults.toLocaleString('en-US')} unguarded \`withTool\` calls returning the real tool results. Then ` +
      `${ctx.calls} guarded \`withTool\` calls in the same run with real arguments and results (` +
      `${on.leavesPerCall.toFixed(1)} reported leaves per call). The client talks to an in-process fake service ` +
      "(its `fetch` option; no network), so the figures are the client's own cost. Provenance on and off are two " +
      `clients in the same process, ${rounds.length} rounds alternating which goes first, after a warm-up round. ` +
      `At the end of the fill the run's store held ${on.held.sources} sources, ` +
      `${on.held.chars.toLocaleString('en-US')} normal-form characters, ${(on.held.bytes / 1024 ** 2).toFixed(2)} MiB ` +
      `(the bounds bite: ${b.MAX_SOURCES} sources, ${b.MAX_TOOL_CHARS.toLocaleString('en-US')} tool and ` +
      `${b.MAX_TRUSTED_CHARS.toLocaleString('en-US')} trusted characters per run, docs/provenance.md "Bounds").`,
    '',
    '| µs | min | median | rounds |',
    '| --- | ---: | ---: | --- |',
    ...rows.map(([name, s]) => `| ${name} | ${us(s.min)} | ${us(s.median)} | ${s.all.map(us).join(', ')} |`),
    `| ratio on / off, guarded \`withTool\` | ${ratio.min.toFixed(2)} | ${ratio.median.toFixed(2)} | ${ratio.all.map((x) => x.toFixed(2)).join(', ')} |`,
    '',
    `Target (issue 14): a 10,000-event run must not slow \`withTool\` by more than a few hundred µs. ` +
      `Per guarded call the client adds the match of its arguments against the run's sources and the record ` +
      `of its result (normal form, trigram filter, instruction detector); an unguarded call adds only the record.`,
  ].join('\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
