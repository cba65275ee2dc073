#!/usr/bin/env bash
# Tests of the Python client (clients/python): makes .venv if missing, installs the package in
# editable mode with the test dependencies (pytest, jsonschema, vermin, build), then runs the unit
# suite and the integration suite (the real standalone service on a fresh PostgreSQL database, so it needs
# DATABASE_URL: sourced from ${WARDEN_INFRA_DIR:-<repo>/.infra}/env, written by infra/services.sh up).
# Exits non-zero when a suite fails or collects no test. Extra arguments go to both pytest runs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"

# shellcheck source=../../scripts/lib/python-venv.sh
source "$repo/scripts/lib/python-venv.sh"
venv="$here/.venv"
# Reinstall only when pyproject.toml changed (the install is editable: code changes need nothing).
ensure_venv "$venv" pyproject.toml -e ".[test]"

infra_env="${WARDEN_INFRA_DIR:-$repo/.infra}/env"
if [[ -f "$infra_env" ]]; then
  # shellcheck disable=SC1090
  source "$infra_env"
  export DATABASE_URL KAFKA_BROKERS REDIS_URL
fi

run() {
  local marker="$1"
  shift
  echo "== pytest -m $marker"
  set +e
  "$venv/bin/python" -m pytest -m "$marker" "$@"
  local rc=$?
  set -e
  if [[ $rc -eq 5 ]]; then
    echo "pytest -m $marker collected no tests" >&2
    return 1
  fi
  return $rc
}

run unit "$@"
if [[ -z "${DATABASE_URL:-}" ]]; then
  echo "integration tests need PostgreSQL: DATABASE_URL is not set and $infra_env does not exist (run: bash infra/services.sh up)" >&2
  exit 1
fi
run integration "$@"
