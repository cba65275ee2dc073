# shellcheck shell=bash
# Helpers shared by infra/*/*.sh. Source it; it defines functions and a few variables only.
#
#   WARDEN_REPO_ROOT   the repository root (derived from this file's location)
#   WARDEN_INFRA_DIR   where services keep binaries, data, logs and pid files
#                      (default: <repo>/.infra, git-ignored)

WARDEN_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WARDEN_INFRA_DIR="${WARDEN_INFRA_DIR:-$WARDEN_REPO_ROOT/.infra}"
export WARDEN_INFRA_DIR

# log COMPONENT MESSAGE... — progress to stderr, so stdout stays machine-readable.
log() {
  local who="$1"
  shift
  printf '[%s] %s\n' "$who" "$*" >&2
}

# die COMPONENT MESSAGE... — print an error and exit 1.
die() {
  local who="$1"
  shift
  printf '[%s] ERROR: %s\n' "$who" "$*" >&2
  exit 1
}

# now_ms — wall clock in milliseconds (for timings).
now_ms() {
  date +%s%3N
}

# elapsed_s START_MS — seconds since START_MS with one decimal.
elapsed_s() {
  local end
  end="$(now_ms)"
  awk -v a="$1" -v b="$end" 'BEGIN { printf "%.1f", (b - a) / 1000 }'
}

# tcp_open HOST PORT — true when something accepts TCP connections there.
tcp_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# pid_running PID — true when PID exists and is not a zombie (an exited daemon whose parent,
# often PID 1 in containers, has not reaped it yet still answers kill -0).
pid_running() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state="$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true)"
  [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

# pid_alive PID [CMDLINE_SUBSTRING] — true when PID is running (and, if given, its command
# line contains CMDLINE_SUBSTRING, so a recycled pid is not mistaken for our process).
pid_alive() {
  local pid="$1" want="${2:-}"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  pid_running "$pid" || return 1
  if [[ -n "$want" ]]; then
    [[ -r "/proc/$pid/cmdline" ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$want" || return 1
  fi
  return 0
}

# read_pid FILE — the pid in FILE, or nothing.
read_pid() {
  if [[ -f "$1" ]]; then tr -dc '0-9' <"$1" || true; fi
}

# stop_pid COMPONENT PID TIMEOUT_S — SIGTERM, wait up to TIMEOUT_S, then SIGKILL.
stop_pid() {
  local who="$1" pid="$2" timeout_s="$3" waited=0
  kill -TERM "$pid" 2>/dev/null || return 0
  while pid_running "$pid"; do
    if ((waited >= timeout_s * 10)); then
      log "$who" "pid $pid still running after ${timeout_s}s: sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# with_lock FILE — take an exclusive lock on FILE for the rest of the calling script, so two
# concurrent `start`s (e.g. parallel test runners) do not race. Waits up to 300 s.
with_lock() {
  local file="$1"
  mkdir -p "$(dirname "$file")"
  exec 9>"$file"
  if ! flock -w 300 9; then
    die lock "could not lock $file within 300 s (another infra script stuck?)"
  fi
}

# as_root CMD... — run CMD as root (directly, or with passwordless sudo), or return 1.
as_root() {
  if [[ "$(id -u)" == 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}

# apt_install COMPONENT PACKAGE... — non-interactive install from Debian's packages.
apt_install() {
  local who="$1"
  shift
  command -v apt-get >/dev/null 2>&1 || die "$who" "apt-get not found: install $* yourself"
  log "$who" "installing $* with apt-get (one-time)"
  export DEBIAN_FRONTEND=noninteractive
  local out="$WARDEN_INFRA_DIR/apt-$who.log"
  mkdir -p "$WARDEN_INFRA_DIR"
  if ! as_root apt-get update -qq >"$out" 2>&1; then
    tail -n 20 "$out" >&2 || true
    die "$who" "apt-get update failed (are you root, or allowed to sudo without a password?)"
  fi
  if ! as_root apt-get install -y -qq --no-install-recommends "$@" >>"$out" 2>&1; then
    tail -n 20 "$out" >&2 || true
    die "$who" "apt-get install $* failed (full output: $out)"
  fi
}
