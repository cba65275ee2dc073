/**
 * Entry point of the `mcp-guard` / `agent-warden-mcp-guard` command (bin/mcp-guard.mjs loads it):
 * runs {@link main} and exits with its code.
 */
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`mcp-guard: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
