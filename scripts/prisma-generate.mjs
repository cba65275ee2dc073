#!/usr/bin/env node
/* global process, console, fetch, AbortSignal */
// `npm run db:generate`: runs `prisma generate` (the Prisma Client into libs/db/src/generated/prisma),
// also where Prisma's engine binaries cannot be downloaded.
//
// The Prisma CLI downloads its native schema engine before every command, `generate` included,
// although `generate` never runs it. npm 11 does not run the install scripts that would fetch it
// at install time, so on a machine without access to binaries.prisma.sh `prisma generate` fails.
// When the engine is not on disk and PRISMA_SCHEMA_ENGINE_BINARY is unset, this script asks the
// engine server (PRISMA_ENGINES_MIRROR, else https://binaries.prisma.sh) whether it can be reached;
// when it cannot, PRISMA_SCHEMA_ENGINE_BINARY is pointed at a placeholder that explains itself and
// exits 1. With network access nothing changes: Prisma downloads and uses its engine as usual.
//
// Arguments are passed to `prisma generate` (e.g. `npm run db:generate -- --watch`).
// As the root `postinstall` it skips (exit 0, with a note) when the Prisma CLI or the schema is not
// there, e.g. `npm ci --omit=dev` in a production image, or an install before prisma/ is copied.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const PROBE_TIMEOUT_MS = 4000;

async function main() {
  const asPostinstall = process.env.npm_lifecycle_event === 'postinstall';
  let cli;
  try {
    cli = require.resolve('prisma/build/index.js');
  } catch {
    return skipOrFail(asPostinstall, 'the prisma CLI is not installed (devDependency)');
  }
  if (!fs.existsSync(path.join(root, 'prisma', 'schema.prisma')))
    return skipOrFail(asPostinstall, 'prisma/schema.prisma is missing');

  const env = { ...process.env };
  if (!env.PRISMA_SCHEMA_ENGINE_BINARY && !env.PRISMA_MIGRATION_ENGINE_BINARY && !schemaEngineOnDisk()) {
    const mirror = env.PRISMA_ENGINES_MIRROR || env.PRISMA_BINARIES_MIRROR || 'https://binaries.prisma.sh';
    if (!(await reachable(mirror))) {
      env.PRISMA_SCHEMA_ENGINE_BINARY = writePlaceholder();
      console.error(
        `prisma-generate: ${mirror} is unreachable and Prisma's schema engine is not installed; ` +
          `generating without it (PRISMA_SCHEMA_ENGINE_BINARY=${env.PRISMA_SCHEMA_ENGINE_BINARY}).`,
      );
    }
  }
  const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  if (result.error) throw result.error;
  process.exit(result.status ?? 1);
}

function skipOrFail(asPostinstall, reason) {
  console.error(
    `prisma-generate: ${reason}; ${asPostinstall ? 'skipping prisma generate' : 'cannot run prisma generate'}.`,
  );
  process.exit(asPostinstall ? 0 : 1);
}

/** Whether a schema engine binary for this Prisma version is in @prisma/engines or Prisma's download cache. */
function schemaEngineOnDisk() {
  const hasEngine = (dir) => {
    try {
      return fs.readdirSync(dir).some((name) => name.startsWith('schema-engine'));
    } catch {
      return false;
    }
  };
  const enginesDir = path.dirname(require.resolve('@prisma/engines/package.json'));
  if (hasEngine(enginesDir)) return true;
  let hash;
  try {
    hash = require('@prisma/engines-version').enginesVersion;
  } catch {
    return false;
  }
  const cacheRoot =
    process.platform === 'win32'
      ? path.join(process.env.APPDATA ?? os.homedir(), 'Prisma')
      : path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'prisma');
  const versionDir = path.join(cacheRoot, 'master', hash);
  try {
    return fs.readdirSync(versionDir).some((target) => hasEngine(path.join(versionDir, target)));
  } catch {
    return false;
  }
}

/** Any HTTP answer counts as reachable; DNS failure, refusal or timeout does not. */
async function reachable(url) {
  try {
    await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return true;
  } catch {
    return false;
  }
}

/** Writes the placeholder executable under node_modules/.cache and returns its path. */
function writePlaceholder() {
  const dir = path.join(root, 'node_modules', '.cache', 'agent-warden');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'schema-engine-offline-placeholder');
  fs.writeFileSync(
    file,
    `#!/bin/sh
echo "This is not Prisma's schema engine: scripts/prisma-generate.mjs put this placeholder in" >&2
echo "PRISMA_SCHEMA_ENGINE_BINARY because the real engine could not be downloaded (offline)." >&2
echo "'prisma generate' does not need the engine. To migrate use 'npm run db:migrate' and" >&2
echo "'npm run db:migration:create|check|status' (see libs/db/README.md), or run Prisma" >&2
echo "Migrate on a machine that can reach binaries.prisma.sh." >&2
exit 1
`,
    { mode: 0o755 },
  );
  fs.chmodSync(file, 0o755);
  return file;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
