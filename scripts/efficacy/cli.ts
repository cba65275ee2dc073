import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { progressView } from '../replay/progress';
import { replayFiles } from '../replay/replay';
import { readTrajectoryLines } from '../replay/trajectories';
import { apiOf, installPack, PACKS, readPack } from './pack';
import { benignCalls, formatReport, meetsTargets } from './report';
import { startStandalone, type StartedService } from './standalone';
import { Tally } from './tally';

const USAGE = `usage: npm run efficacy -- [--pack balanced|strict|FILE] [--url URL --api-key KEY] [--json] FILE.jsonl...
  --pack          the policy pack: ${Object.keys(PACKS).join(' or ')} (examples/policies/prompt-injection*.json), or a
                  policy set file (default balanced)
  --url           a running service (default $WARDEN_BASE_URL); without one (and without --api-key /
                  $WARDEN_API_KEY) a standalone service is started on a fresh data directory and stopped after
  --api-key       admin key of a project of its own: the pack is imported there, the other level disabled,
                  and any other enabled policy refuses the run (it would count in the figures)
  --api-url       where policies and counts are read (stack mode: the api; default --url)
  --concurrency   trajectories replayed at once (default 8)
  --approval-wait ms a held call is waited on before it counts as held (default 200; nobody approves)
  --json          print the figures as one JSON object instead of the table
Replays the files in enforce mode through the TypeScript client (scripts/replay, a fresh namespace
per run so every call is evaluated) and prints, per AgentDojo suite and in total, the injected calls
stopped and the benign calls stopped (docs/guardrails.md "Efficacy"). Progress goes to stderr.`;

/** The commit of the working tree (for the report), or `unknown`. */
function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** `npm run efficacy`: replays trajectories in enforce mode with a prompt-injection pack and prints the figures. */
async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      pack: { type: 'string', default: 'balanced' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'api-url': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      'approval-wait': { type: 'string', default: '200' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const pack = readPack(values.pack);
  let url = (values.url ?? process.env.WARDEN_BASE_URL)?.replace(/\/+$/, '');
  let apiKey = values['api-key'] ?? process.env.WARDEN_API_KEY;
  let started: StartedService | undefined;
  if (!url && !apiKey) {
    process.stderr.write('efficacy: starting a standalone service on a fresh data directory…\n');
    started = await startStandalone();
    ({ url, apiKey } = started);
  }
  if (!apiKey) throw new Error('--url needs an admin key: --api-key KEY or WARDEN_API_KEY');
  url ??= 'http://127.0.0.1:7400';
  const apiUrl = values['api-url']?.replace(/\/+$/, '') ?? url;
  const interrupt = new AbortController();
  process.on('SIGINT', () => interrupt.abort());
  try {
    await installPack(apiOf(apiUrl, apiKey), pack);
    const tally = new Tally();
    const view = progressView();
    const replay = await replayFiles({
      files: positionals,
      baseUrl: url,
      statsUrl: apiUrl,
      apiKey,
      mode: 'enforce',
      concurrency: Number(values.concurrency),
      approvalWaitMs: Number(values['approval-wait']),
      namespace: `eff-${pack.digest}-${Date.now().toString(36)}`,
      signal: interrupt.signal,
      onProgress: (p) => view.update(p),
      onToolCall: (c) => tally.add(c),
    }).finally(() => view.stop());
    // Runs without a tool call never reach the hook: register every run.
    for (const file of positionals)
      for await (const { trajectory } of readTrajectoryLines(file)) tally.addRun(trajectory);
    const figures = tally.figures();
    const meta = {
      pack: values.pack,
      packFile: pack.file,
      packDigest: pack.digest,
      commit: commitOf(),
      date: new Date().toISOString(),
      files: positionals,
    };
    if (values.json) {
      const { missing, duplicates, incomplete, events_stored, decisions, stopped } = replay;
      process.stdout.write(
        JSON.stringify({
          ...meta,
          figures,
          benign: benignCalls(figures),
          targets: meetsTargets(figures),
          replay: { events_stored, missing, duplicates, incomplete, decisions, stopped },
        }) + '\n',
      );
    } else
      process.stdout.write(
        formatReport(figures, `efficacy of ${values.pack} (${pack.digest}) at ${meta.commit}, ${meta.date}`) +
          `replay: ${replay.events_stored} events stored, missing ${replay.missing}, duplicates ${replay.duplicates}, incomplete ${replay.incomplete}\n`,
      );
    if (replay.interrupted) process.exitCode = 130;
    else if (replay.incomplete > 0 || replay.missing !== 0) process.exitCode = 1;
  } finally {
    await started?.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
