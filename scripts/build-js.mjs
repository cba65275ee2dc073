#!/usr/bin/env node
// Production build of the services (infra/docker/Dockerfile's build stage; docs/operations.md
// "Images"): compiles every workspace package's TypeScript in place to CommonJS JavaScript
// (tsconfig.build.json: `.js` beside each `.ts`), then points each workspace package.json's
// `main` at the compiled file, so `node services/<name>/src/main.js` runs with production
// dependencies only — no tsx, no TypeScript at run time. Run from the repository root, in a build
// stage or a scratch copy: it rewrites package.json files.
//
//   node scripts/build-js.mjs            compile and rewrite
//   node scripts/build-js.mjs --check    exit 1 unless every workspace main has its .js
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workspaces = ['libs', 'services']
  .flatMap((d) => fs.readdirSync(path.join(root, d)).map((n) => path.join(d, n)))
  .filter(
    (d) => fs.existsSync(path.join(root, d, 'package.json')) && d !== path.join('services', 'dashboard'),
  );

const check = process.argv.includes('--check');
if (!check && fs.existsSync(path.join(root, '.git')) && !process.argv.includes('--in-place')) {
  process.stderr.write(
    'build-js rewrites package.json files and writes .js beside every .ts: run it in a build stage or a scratch copy, not in a git checkout (or pass --in-place)\n',
  );
  process.exit(2);
}
if (!check) {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
let missing = 0;
for (const ws of workspaces) {
  const file = path.join(root, ws, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (typeof pkg.main !== 'string') continue;
  const js = pkg.main.replace(/\.ts$/, '.js');
  if (!fs.existsSync(path.join(root, ws, js))) {
    process.stderr.write(`${ws}: ${js} was not built\n`);
    missing += 1;
    continue;
  }
  if (!check && js !== pkg.main) {
    pkg.main = js;
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
  }
}
if (missing > 0) process.exit(1);
process.stdout.write(`build-js: ${workspaces.length} workspace packages run as JavaScript\n`);
