#!/usr/bin/env bash
# Fuzzes the served OpenAPI document with schemathesis (docs/reliability.md "Fuzzing the API").
#
# Starts the standalone service (services/standalone: embedded PostgreSQL, in-process bus) on a free
# loopback port with a fresh data dir, an API key with every scope (WARDEN_INIT_API_KEY) and a first
# admin, seeds one agent, session, policy, approval and spare key and binds the path parameters to
# them (scripts/fuzz/seed.py), then runs `schemathesis run` over GET /v1/openapi.json with the key. It fails (exit
# non-zero) on any server error, any answer whose status, content type, headers or body the document
# does not describe, any undocumented method not answered 405 with Allow, and any schema-invalid
# input the service accepts. schemathesis (pinned in scripts/fuzz/requirements.txt) lives in a venv
# made at the first run: scripts/fuzz/.venv (WARDEN_FUZZ_VENV to put it elsewhere).
#
# Usage: scripts/fuzz/run.sh [--max-examples N] [other `schemathesis run` options]
#   FUZZ_MAX_EXAMPLES   cases per operation and phase when --max-examples is not given (default 300)
#   FUZZ_REPORT_DIR     where the JUnit report goes (default: a temporary dir, printed)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

# shellcheck source=../lib/python-venv.sh
source "$repo/scripts/lib/python-venv.sh"
venv="${WARDEN_FUZZ_VENV:-$here/.venv}"
ensure_venv "$venv" "$here/requirements.txt" -r "$here/requirements.txt"

data="$(mktemp -d -t warden-fuzz-XXXXXX)"
log="$data/service.log"
port="$("$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
key="aw_fuzz_$("$venv/bin/python" -c 'import secrets; print(secrets.token_urlsafe(24))')"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$data"
}
trap cleanup EXIT

# The embedded database, never a DATABASE_URL the caller's shell may export.
env -u DATABASE_URL PORT="$port" HOST=127.0.0.1 WARDEN_DATA_DIR="$data/warden" LOG_LEVEL=warn \
  WARDEN_INIT_API_KEY="$key" WARDEN_INIT_ADMIN_EMAIL=fuzz-admin@example.com \
  WARDEN_INIT_ADMIN_PASSWORD="$key" WARDEN_SESSION_QUIET_MS=600000 \
  node --import tsx services/standalone/src/main.ts >"$log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 180); do
  if curl -fsS "$base/ready" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then
    cat "$log" >&2
    echo "the standalone service exited before it was ready" >&2
    exit 1
  fi
  sleep 0.5
done
curl -fsS "$base/ready" >/dev/null
# Real rows for the operations on ids (else they only ever answer 404): scripts/fuzz/seed.py.
config="$data/seeded-ids.toml" # not schemathesis.toml: that name is read from the working dir by every run
"$venv/bin/python" "$here/seed.py" "$base" "$key" >"$config"

has_max=false
for a in "$@"; do [[ "$a" == --max-examples* || "$a" == -n ]] && has_max=true; done
extra=()
$has_max || extra+=(--max-examples "${FUZZ_MAX_EXAMPLES:-300}")
report="${FUZZ_REPORT_DIR:-$data/report}"

started=$(date +%s)
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance
checks+=,response_schema_conformance,unsupported_method,allow_header_conformance,negative_data_rejection
# One worker: with two threads, hypothesis's lambda descriptions (ast.parse) raced in CPython 3.11
# ("AST constructor recursion depth mismatch"), a harness error that failed a run now and then.
# Excluded operations: signing out (nothing to check) and the live SSE stream (an endless body).
# The stateful phase is not run: it would follow the key list to revoke the run's own key.
fuzz() {
  local name="$1"
  shift
  echo "== fuzz: $name"
  # From the data dir: schemathesis keeps a .schemathesis/ cache in its working directory.
  (cd "$data" && "$venv/bin/schemathesis" "$@" run "$base/v1/openapi.json" \
    --url "$base" \
    --header "Authorization: Bearer $key" \
    --exclude-path /v1/auth/logout --exclude-path /v1/approvals/stream \
    --phases examples,coverage,fuzzing \
    --generation-with-security-parameters false --generation-database :memory: \
    --workers 1 --no-color \
    --report junit --report-dir "$report/$name" \
    "${extra[@]}" "${args[@]}")
}
set +e
# 1. Every operation, valid and invalid inputs, random ids.
args=(--checks "$checks" "$@")
fuzz all
rc1=$?
# 2. The operations on an id, with the seeded rows' ids bound, valid inputs only (a bound id
# replaces whatever invalid id the negative mode meant to send, so run 1 covers those).
args=(--checks "${checks%,negative_data_rejection}" --mode positive
  --include-path-regex '\{(agentId|agentVersionId|sessionId|policyId|approvalId|keyId|userId|webhookId)\}' "$@")
fuzz seeded --config-file "$config"
rc2=$?
set -e
rc=$((rc1 > rc2 ? rc1 : rc2))
echo "fuzz: schemathesis exited $rc after $(($(date +%s) - started)) s"
[[ -n "${FUZZ_REPORT_DIR:-}" ]] && echo "fuzz: JUnit reports in $report"
if ! kill -0 "$pid" 2>/dev/null; then
  status=0
  wait "$pid" || status=$?
  echo "fuzz: the service exited during the run with status $status (> 128: killed by signal status − 128)" >&2
  pid=""
  rc=1
fi
if [[ $rc -ne 0 ]]; then
  echo "--- service log (warnings and errors) ---" >&2
  tail -n 50 "$log" >&2
  [[ -z "${FUZZ_REPORT_DIR:-}" ]] && cp -r "$report" "${TMPDIR:-/tmp}/warden-fuzz-report-$$" && echo "report kept in ${TMPDIR:-/tmp}/warden-fuzz-report-$$" >&2
fi
exit $rc
