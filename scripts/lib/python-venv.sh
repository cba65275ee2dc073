# shellcheck shell=bash
# ensure_venv VENV SPEC PIP_ARGS...: makes the Python venv VENV when missing (with $PYTHON, default
# python3) and runs `pip install PIP_ARGS...` in it when the file SPEC (a requirements file or a
# pyproject.toml) changed since the last install (its SHA-256 is kept in VENV/.agentwarden-install).
# Sourced by clients/python/run-tests.sh and scripts/fuzz/run.sh.
ensure_venv() {
  local venv="$1" spec="$2" stamp want
  shift 2
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "creating $venv"
    "${PYTHON:-python3}" -m venv "$venv"
  fi
  stamp="$venv/.agentwarden-install"
  want="$(sha256sum "$spec" | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    echo "$want" >"$stamp"
  fi
}
