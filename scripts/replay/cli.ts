import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { replayFiles } from './replay';

const USAGE = `usage: npm run replay -- [--url URL] [--api-key KEY] [--mode monitor|enforce] [--concurrency N] [--limit N] FILE.jsonl...
  --url       service base URL (default $WARDEN_BASE_URL or http://127.0.0.1:7400)
  --api-key   API key (default $WARDEN_API_KEY)
  --api-url   where to read the counts back (stack mode: the api service; default --url)
  --policies  a policy set (examples/policies/*.json) imported first (admin key; existing names updated)
  --mode      monitor (default) or enforce; enforce prints per-label blocked / held-for-approval counts
Prints one JSON line: {"trajectories","events_sent","events_stored","duplicates","missing","decisions":{...}}`;

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
  const summary = await replayFiles({
    files: positionals,
    baseUrl,
    apiKey,
    mode: values.mode,
    statsUrl: apiUrl,
    concurrency: Number(values.concurrency),
    limit: values.limit ? Number(values.limit) : undefined,
  });
  const { trajectories, events_sent, events_stored, duplicates, missing, decisions, stopped, byLabel } =
    summary;
  const line: Record<string, unknown> = {
    trajectories,
    events_sent,
    events_stored,
    duplicates,
    missing,
    decisions,
  };
  if (values.mode === 'enforce') Object.assign(line, { stopped, by_label: byLabel });
  process.stdout.write(JSON.stringify(line) + '\n');
  process.exit(missing === 0 && duplicates === 0 ? 0 : 1);
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
