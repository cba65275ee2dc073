import { parseArgs } from 'node:util';
import { replayFiles } from './replay';

const USAGE = `usage: npm run replay -- [--url URL] [--api-key KEY] [--mode monitor|enforce] [--concurrency N] [--limit N] FILE.jsonl...
  --url       service base URL (default $WARDEN_BASE_URL or http://127.0.0.1:7400)
  --api-key   API key (default $WARDEN_API_KEY)
  --api-url   where to read the counts back (stack mode: the api service; default --url)
Prints one JSON line: {"trajectories","events_sent","events_stored","duplicates","missing","decisions":{...}}`;

/** `npm run replay`: replays trajectory files through the TypeScript client and prints the summary read back. */
async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'api-url': { type: 'string' },
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
  const summary = await replayFiles({
    files: positionals,
    baseUrl: (values.url ?? process.env.WARDEN_BASE_URL ?? 'http://127.0.0.1:7400').replace(/\/+$/, ''),
    apiKey,
    mode: values.mode,
    statsUrl: values['api-url']?.replace(/\/+$/, ''),
    concurrency: Number(values.concurrency),
    limit: values.limit ? Number(values.limit) : undefined,
  });
  const { trajectories, events_sent, events_stored, duplicates, missing, decisions, stopped } = summary;
  process.stdout.write(
    JSON.stringify({ trajectories, events_sent, events_stored, duplicates, missing, decisions, stopped }) +
      '\n',
  );
  process.exit(missing === 0 && duplicates === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
