#!/usr/bin/env bash
# A throwaway Redis server for tests and development, on loopback, without persistence.
#
#   redis.sh start    install redis-server with apt-get if missing, start daemonized, wait for PONG
#   redis.sh stop     SHUTDOWN NOSAVE (SIGTERM, then SIGKILL after REDIS_STOP_TIMEOUT)
#   redis.sh status   exit 0 when running, 3 when stopped
#
# Variables: REDIS_PORT (16379), REDIS_START_TIMEOUT (30 s), REDIS_STOP_TIMEOUT (10 s),
# WARDEN_INFRA_DIR (<repo>/.infra).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$HERE/../lib.sh"

WHO=redis
REDIS_PORT="${REDIS_PORT:-16379}"
REDIS_START_TIMEOUT="${REDIS_START_TIMEOUT:-30}"
REDIS_STOP_TIMEOUT="${REDIS_STOP_TIMEOUT:-10}"

DIR="$WARDEN_INFRA_DIR/redis"
PIDFILE="$DIR/redis.pid"
LOGFILE="$DIR/redis.log"

ensure_installed() {
  if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    local t0
    t0="$(now_ms)"
    apt_install "$WHO" redis-server redis-tools
    command -v redis-server >/dev/null 2>&1 || die "$WHO" "redis-server still not on PATH after install"
    log "$WHO" "installed $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p') in $(elapsed_s "$t0") s"
  fi
}

redis_ping() {
  [[ "$(timeout 2 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null || true)" == PONG ]]
}

running_pid() {
  local pid
  pid="$(read_pid "$PIDFILE")"
  if [[ -n "$pid" ]] && pid_alive "$pid" "redis-server"; then
    echo "$pid"
  fi
}

cmd_start() {
  with_lock "$WARDEN_INFRA_DIR/redis.lock"
  ensure_installed
  mkdir -p "$DIR"
  local pid t0
  t0="$(now_ms)"
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    log "$WHO" "already running (pid $pid) on 127.0.0.1:$REDIS_PORT"
  else
    if tcp_open 127.0.0.1 "$REDIS_PORT"; then
      die "$WHO" "port $REDIS_PORT is already in use by another process (set REDIS_PORT)"
    fi
    rm -f "$PIDFILE"
    # No RDB snapshots, no AOF: data lives in memory only. noeviction, as BullMQ requires.
    # 9>&- : the daemon must not inherit the lock's file descriptor.
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
      --daemonize yes --pidfile "$PIDFILE" --logfile "$LOGFILE" --dir "$DIR" \
      --save '' --appendonly no --maxmemory-policy noeviction --loglevel warning 9>&- ||
      die "$WHO" "redis-server failed to start (see $LOGFILE)"
  fi
  local deadline=$(($(date +%s) + REDIS_START_TIMEOUT))
  until redis_ping; do
    if (($(date +%s) >= deadline)); then
      tail -n 20 "$LOGFILE" >&2 || true
      die "$WHO" "no PONG from 127.0.0.1:$REDIS_PORT after ${REDIS_START_TIMEOUT}s"
    fi
    sleep 0.1
  done
  log "$WHO" "ready: redis://127.0.0.1:$REDIS_PORT in $(elapsed_s "$t0") s (pid $(read_pid "$PIDFILE"), log $LOGFILE)"
}

cmd_stop() {
  with_lock "$WARDEN_INFRA_DIR/redis.lock"
  local pid t0
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    rm -f "$PIDFILE"
    log "$WHO" "not running"
    return 0
  fi
  t0="$(now_ms)"
  # SHUTDOWN NOSAVE answers at once; SIGTERM (then SIGKILL) is the fallback.
  timeout 5 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  stop_pid "$WHO" "$pid" "$REDIS_STOP_TIMEOUT"
  rm -f "$PIDFILE"
  log "$WHO" "stopped in $(elapsed_s "$t0") s"
}

cmd_status() {
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]] && redis_ping; then
    echo "redis: running (pid $pid) on 127.0.0.1:$REDIS_PORT"
  else
    echo "redis: stopped"
    return 3
  fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 {start|stop|status}" >&2
    exit 2
    ;;
esac
