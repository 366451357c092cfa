#!/usr/bin/env bash
# Builds the chart tools (helm, kubeconform) from their Go modules into .cache/chart-tools/bin, and
# reuses them while the pinned versions and tool modules are unchanged (stamp file). Nothing built
# here is committed. Each tool is a `tool` line in its own go.mod (scripts/chart/helm, .../kubeconform).
#
# Exit codes: 0 built or reused, 3 Go is not installed (callers skip loudly), other: build failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_CHART_TOOLS_DIR:-$ROOT/.cache/chart-tools}"
BIN="$CACHE/bin"
# shellcheck source=versions.env
source "$HERE/versions.env"

GO="$(command -v go || true)"
if [[ -z "$GO" && -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go; fi
all_present() { [[ -x "$BIN/helm" && -x "$BIN/kubeconform" ]]; }
if [[ -z "$GO" ]]; then
  if all_present; then
    echo "chart build.sh: Go is not installed; using the tools already in $BIN (their match with versions.env cannot be checked)" >&2
    exit 0
  fi
  echo "chart build.sh: Go is not installed (no 'go' on PATH, no /usr/local/go/bin/go); helm and kubeconform cannot be built" >&2
  exit 3
fi

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
mkdir -p "$BIN"
exec 9>"$CACHE/build.lock"
flock 9

stamp_of() {
  {
    "$GO" version
    cat "$HERE/versions.env" "$HERE/build.sh"
    cat "$HERE/helm/go.mod" "$HERE/helm/go.sum" "$HERE/kubeconform/go.mod" "$HERE/kubeconform/go.sum"
  } | sha256sum | cut -d' ' -f1
}

STAMP="$(stamp_of)"
if all_present && [[ -f "$BIN/.stamp" && "$(cat "$BIN/.stamp")" == "$STAMP" ]]; then
  echo "chart build.sh: helm $HELM_VERSION and kubeconform $KUBECONFORM_VERSION are up to date in $BIN"
  exit 0
fi
rm -f "$BIN/.stamp"

started=$SECONDS
echo "chart build.sh: building kubeconform $KUBECONFORM_VERSION"
(cd "$HERE/kubeconform" && nice -n 10 "$GO" build -trimpath -ldflags "-s -w -X main.version=$KUBECONFORM_VERSION" -o "$BIN/kubeconform" github.com/yannh/kubeconform/cmd/kubeconform)
kubeconform_done=$SECONDS
echo "chart build.sh: building helm $HELM_VERSION (a cold build takes a few minutes)"
(cd "$HERE/helm" && nice -n 10 "$GO" build -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
  -o "$BIN/helm" helm.sh/helm/v3/cmd/helm)
finished=$SECONDS

echo "$STAMP" >"$BIN/.stamp"
line="$(date -u +%Y-%m-%dT%H:%M:%SZ) helm=$HELM_VERSION kubeconform=$KUBECONFORM_VERSION $("$GO" version | cut -d' ' -f3) kubeconform_s=$((kubeconform_done - started)) helm_s=$((finished - kubeconform_done)) total_s=$((finished - started)) nproc=$(nproc)"
echo "$line" >>"$CACHE/build-times.log"
echo "chart build.sh: done in $((finished - started))s ($line)"
