#!/usr/bin/env bash
# The README's test command (`npm test`): generates the Prisma client, starts real PostgreSQL,
# Kafka and Redis on loopback (infra/services.sh; installs Redis and fetches Kafka from Maven
# Central when missing), then runs the unit and the integration suites. A suite whose service is
# missing fails; none is skipped. Then a bounded schemathesis run of the OpenAPI document
# (scripts/fuzz/run.sh) and the Python client's suites (clients/python/run-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

npm run --silent db:generate
bash infra/services.sh up
# shellcheck disable=SC1091
source "${WARDEN_INFRA_DIR:-.infra}/env"
export DATABASE_URL KAFKA_BROKERS REDIS_URL

npx tsc -p tsconfig.json --noEmit
# The dashboard (browser code: DOM lib, JSX) has its own tsconfig; then its build for the e2e suite.
npx tsc -p services/dashboard/tsconfig.json --noEmit
node services/dashboard/scripts/ensure-built.mjs
npm run --silent lint
# The Helm chart's tests run `helm lint` / `helm template` (built from the Go module proxy when missing).
HELM_BIN="$(bash infra/helm/ensure-helm.sh)"
export HELM_BIN
npx jest --selectProjects unit "$@"
# --forceExit: a suite that fails mid-way (e.g. a timed-out hook) can leave a client open; CI must
# still end with jest's verdict instead of hanging until its time limit.
npx jest --selectProjects integration --runInBand --forceExit "$@"
# Schemathesis over the served OpenAPI document, bounded (`npm run fuzz` is the full run; docs/reliability.md).
FUZZ_MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-15}" bash scripts/fuzz/run.sh
bash clients/python/run-tests.sh
