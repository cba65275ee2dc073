#!/usr/bin/env bash
# The production build of the repository tree it runs in (infra/docker/Dockerfile's build stage, and
# test/production-build.int.test.ts on a scratch copy): the Prisma client and the dashboard's static
# files when absent, every workspace compiled to CommonJS JavaScript beside its source
# (scripts/build-js.mjs), the dev dependencies pruned, then what only the build needs removed —
# TypeScript sources (source maps stay for stack traces), tests, benchmarks, the Python client, docs.
# Rewrites the tree: never run it in a checkout you work in (build-js.mjs refuses a git checkout).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if [[ ! -d libs/db/src/generated ]]; then
  # prisma.config may read DATABASE_URL; generation itself never connects.
  DATABASE_URL="${DATABASE_URL:-postgresql://build@localhost:5432/build}" npm run --silent db:generate
fi
[[ -f services/dashboard/dist/index.html ]] || npm run --silent build -w services/dashboard
node scripts/build-js.mjs
# The clients are published packages of their own, not part of the services: out of the workspaces
# before the prune, so what only they need (tsx for mcp-guard's bin, the MCP SDK…) goes too.
node -e "const fs=require('fs');const p=JSON.parse(fs.readFileSync('package.json','utf8'));p.workspaces=p.workspaces.filter((w)=>!w.startsWith('clients/'));fs.writeFileSync('package.json',JSON.stringify(p,null,2)+'\\n')"
npm prune --omit=dev --no-audit --no-fund
find libs services -name node_modules -prune -o -name '*.ts' ! -name '*.d.ts' -type f -print0 |
  xargs -0 rm -f
rm -rf test bench scripts/efficacy scripts/fuzz clients examples docs services/dashboard/src
echo "build-production: done"
