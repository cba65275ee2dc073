import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { progressView } from './progress';
import { replayFiles, type ReplaySummary } from './replay';

const USAGE = `usage: npm run replay -- [--url URL] [--api-key KEY] [--mode monitor|enforce] [--concurrency N] [--limit N] FILE.jsonl...
  --url        service base URL (default $WARDEN_BASE_URL or http://127.0.0.1:7400)
  --api-key    API key (default $WARDEN_API_KEY)
  --api-url    where to read the counts back (stack mode: the api service; default --url)
  --policies   a policy set (examples/policies/*.json) imported first (admin key; existing names updated)
  --mode       monitor (default) or enforce; enforce prints per-label blocked / held-for-approval counts
  --retry-for  seconds one request is retried while the service is down or answers 5xx (default 300)
  --namespace  replay the same files as new data (ids differ); by default a re-run completes an
               interrupted run and adds nothing for what is already stored
Ids are deterministic (file bytes + trajectory + position): run it again after an interruption and
it finishes the job without storing anything twice. Progress goes to stderr (a bar on a terminal).
Ctrl-C stops starting trajectories, lets the running ones finish, and still prints the summary.
Prints one JSON line: {"trajectories","skipped","resumed","events_sent","events_expected","events_stored",
"duplicates","missing","events_unsent","incomplete","interrupted","decisions":{...}}
Exit code: 0 when everything is stored once (missing 0, duplicates 0, nothing incomplete),
1 otherwise, 130 after Ctrl-C.`;

/** `npm run replay`: replays trajectory files through the TypeScript client and prints the summary read back. */
async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'api-url': { type: 'string' },
      policies: { type: 'string' },
      mode: { type: 'string', default: 'monitor' },
      concurrency: { type: 'string', default: '8' },
      limit: { type: 'string' },
      'retry-for': { type: 'string', default: '300' },
      namespace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const apiKey = values['api-key'] ?? process.env.WARDEN_API_KEY;
  if (!apiKey) {
    console.error('an API key is required: --api-key KEY or WARDEN_API_KEY\n' + USAGE);
    process.exit(2);
  }
  if (values.mode !== 'monitor' && values.mode !== 'enforce') {
    console.error(`--mode must be monitor or enforce, not ${values.mode}`);
    process.exit(2);
  }
  const baseUrl = (values.url ?? process.env.WARDEN_BASE_URL ?? 'http://127.0.0.1:7400').replace(/\/+$/, '');
  const apiUrl = values['api-url']?.replace(/\/+$/, '') ?? baseUrl;
  if (values.policies) await importPolicies(apiUrl, apiKey, values.policies);

  // Ctrl-C: the first stops the replay gracefully (summary still printed), a second exits at once.
  const interrupt = new AbortController();
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) {
      process.stderr.write('\nreplay: interrupted again, exiting without the read-back\n');
      process.exit(130);
    }
    process.stderr.write(
      '\nreplay: interrupted; finishing the running trajectories (Ctrl-C again to quit now)\n',
    );
    interrupt.abort();
  });
  const view = progressView();
  let summary: ReplaySummary;
  try {
    summary = await replayFiles({
      files: positionals,
      baseUrl,
      apiKey,
      mode: values.mode,
      statsUrl: apiUrl,
      concurrency: Number(values.concurrency),
      limit: values.limit ? Number(values.limit) : undefined,
      retryForMs: Number(values['retry-for']) * 1000,
      namespace: values.namespace,
      signal: interrupt.signal,
      onProgress: (p) => view.update(p),
    });
  } catch (err) {
    view.stop();
    // Even a replay that could not start (or failed) prints a summary line, with the reason.
    process.stdout.write(
      JSON.stringify({
        error: err instanceof Error ? err.message : String(err),
        interrupted: interrupt.signal.aborted,
      }) + '\n',
    );
    process.exit(interrupt.signal.aborted ? 130 : 1);
  }
  view.stop();
  const { stopped, byLabel, agentVersionIds: _ids, client, ...line } = summary;
  const out: Record<string, unknown> = { ...line, client };
  if (values.mode === 'enforce') Object.assign(out, { stopped, by_label: byLabel });
  process.stdout.write(JSON.stringify(out) + '\n');
  const complete = summary.missing === 0 && summary.duplicates === 0 && summary.incomplete === 0;
  process.exit(summary.interrupted ? 130 : complete ? 0 : 1);
}

/** Imports a policy set file (`POST /v1/policies/import`, names that exist are updated) and waits for gateways to load it. */
async function importPolicies(apiUrl: string, apiKey: string, file: string): Promise<void> {
  const set = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const res = await fetch(`${apiUrl}/v1/policies/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...set, onConflict: 'update' }),
  });
  if (!res.ok) throw new Error(`policy import answered ${res.status}: ${await res.text()}`);
  // Gateways check for policy changes every 500 ms.
  await new Promise((r) => setTimeout(r, 1500));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
