#!/usr/bin/env bash
# Makes the secret files docker-compose.yml mounts (./secrets/, git-ignored), once: random values,
# never defaults. Existing files are kept (re-running changes nothing), so a database initialised with
# one password keeps working. The directory is 0700 (only you read it on the host); the files are
# 0644 because compose bind-mounts them with their host mode and the services run as the image's
# `node` user (docs/operations.md "Secrets").
#
#   bash infra/docker/make-secrets.sh [dir]     (default: ./secrets next to docker-compose.yml)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${1:-$root/secrets}"
mkdir -p "$dir"
chmod 0700 "$dir"

# URL-safe random text (hex), $1 bytes of entropy.
rand() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

write() { # name value — only when absent
  local f="$dir/$1"
  if [[ -s "$f" ]]; then
    echo "kept    $f"
  else
    (umask 022 && printf '%s\n' "$2" >"$f")
    chmod 0644 "$f"
    echo "created $f"
  fi
}

write postgres_password "$(rand 24)"
password="$(head -n1 "$dir/postgres_password")"
write database_url "postgresql://warden:${password}@postgres:5432/warden"
write jwt_secret "$(rand 48)"
write init_api_key "aw_$(rand 24)"
echo "The API key for clients is in $dir/init_api_key."
