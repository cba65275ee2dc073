#!/usr/bin/env bash
# Starts and stops the three real services the stack and the integration tests use:
# PostgreSQL (infra/postgres), Redis (infra/redis) and Kafka (infra/kafka), all on 127.0.0.1.
#
#   services.sh up       start all three (idempotent), create the application topics that are
#                        missing, write $WARDEN_INFRA_DIR/env and print it
#   services.sh down     stop all three (data kept; each script's `reset` wipes it)
#   services.sh status   one line per service; exit 0 only when all three run
#   services.sh env      print $WARDEN_INFRA_DIR/env (written by `up`)
#
# Use in a shell or a CI step:   eval "$(infra/services.sh up)"   or
#                                infra/services.sh up && source .infra/env
# Variables: PG_PORT (15432), REDIS_PORT (16379), KAFKA_PORT (19092),
# KAFKA_CONTROLLER_PORT (19093), WARDEN_INFRA_DIR (<repo>/.infra); see each script for more.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

WHO=services
PG_PORT="${PG_PORT:-15432}"
REDIS_PORT="${REDIS_PORT:-16379}"
KAFKA_PORT="${KAFKA_PORT:-19092}"
export PG_PORT REDIS_PORT KAFKA_PORT
ENV_FILE="$WARDEN_INFRA_DIR/env"

write_env() {
  local tmp
  mkdir -p "$WARDEN_INFRA_DIR"
  tmp="$(mktemp "$ENV_FILE.XXXXXX")"
  cat >"$tmp" <<EOF
export DATABASE_URL=postgresql://warden@127.0.0.1:$PG_PORT/warden
export KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
export REDIS_URL=redis://127.0.0.1:$REDIS_PORT
EOF
  mv -f "$tmp" "$ENV_FILE"
}

cmd_up() {
  local t0 kafka_out kafka_pid rc=0
  t0="$(now_ms)"
  mkdir -p "$WARDEN_INFRA_DIR"
  # Kafka is the slow one (a JVM, then a metadata round trip): start it alongside the others.
  kafka_out="$WARDEN_INFRA_DIR/kafka-start.out"
  { "$HERE/kafka/kafka.sh" start && "$HERE/kafka/kafka.sh" ensure-topics; } >"$kafka_out" 2>&1 &
  kafka_pid=$!
  "$HERE/postgres/postgres.sh" start || rc=1
  "$HERE/redis/redis.sh" start || rc=1
  wait "$kafka_pid" || rc=1
  cat "$kafka_out" >&2
  ((rc == 0)) || die "$WHO" "some services did not start (messages above)"
  write_env
  log "$WHO" "all up in $(elapsed_s "$t0") s; environment in $ENV_FILE"
  cat "$ENV_FILE"
}

cmd_down() {
  local rc=0
  "$HERE/kafka/kafka.sh" stop || rc=1
  "$HERE/redis/redis.sh" stop || rc=1
  "$HERE/postgres/postgres.sh" stop || rc=1
  ((rc == 0)) || die "$WHO" "some services did not stop cleanly (messages above)"
}

cmd_status() {
  local rc=0
  "$HERE/postgres/postgres.sh" status || rc=3
  "$HERE/redis/redis.sh" status || rc=3
  "$HERE/kafka/kafka.sh" status || rc=3
  return "$rc"
}

cmd_env() {
  [[ -f "$ENV_FILE" ]] || die "$WHO" "$ENV_FILE does not exist: run '$0 up' first"
  cat "$ENV_FILE"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *)
    echo "usage: $0 {up|down|status|env}" >&2
    exit 2
    ;;
esac
