#!/usr/bin/env bash
# Prints the path of a Helm 3 binary for the chart's tests (infra/helm.test.ts), installing one when
# the machine has none: `helm` on PATH, else $WARDEN_INFRA_DIR/bin/helm, else built there with
# `go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION` from the Go module proxy (Helm publishes its
# releases as a Go module; no other download is needed). Progress goes to stderr.
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin_dir="${WARDEN_INFRA_DIR:-$root/.infra}/bin"
if command -v helm >/dev/null 2>&1; then
  command -v helm
  exit 0
fi
if [[ ! -x "$bin_dir/helm" ]]; then
  command -v go >/dev/null 2>&1 || {
    echo "ensure-helm: no helm and no go to build it (install Go, or put helm on PATH)" >&2
    exit 1
  }
  echo "ensure-helm: building helm $HELM_VERSION into $bin_dir (go install)" >&2
  mkdir -p "$bin_dir"
  GOBIN="$bin_dir" GOFLAGS=-mod=mod go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
fi
echo "$bin_dir/helm"
