// Builds the dashboard when `dist/` is missing or older than its sources (root `prestart`, test command).
// Usage: node services/dashboard/scripts/ensure-built.mjs [--force]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'index.html');

/** Newest modification time (ms) of a file or of every file under a folder. */
function newest(p) {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const name of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, name)));
  return max;
}

const sources = ['src', 'index.html', 'package.json', 'vite.config.mts', 'tsconfig.json'].map((p) =>
  newest(path.join(root, p)),
);
const builtAt = newest(built);
if (process.argv.includes('--force') || builtAt === 0 || Math.max(...sources) > builtAt) {
  process.stdout.write('building the dashboard (services/dashboard/dist)…\n');
  execFileSync(
    process.execPath,
    [path.join(root, '../../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
