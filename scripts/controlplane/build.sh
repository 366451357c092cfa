#!/usr/bin/env bash
# Builds the test control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl) from their
# Go modules into .cache/controlplane/bin, and reuses the binaries while the pinned versions and
# wrapper modules are unchanged (stamp file). Nothing built here is committed.
#
# Exit codes: 0 built or reused, 3 Go is not installed (callers skip loudly), other: build failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_CONTROLPLANE_DIR:-$ROOT/.cache/controlplane}"
BIN="$CACHE/bin"
# shellcheck source=versions.env
source "$HERE/versions.env"

GO="$(command -v go || true)"
if [[ -z "$GO" && -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go; fi
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl)
all_present() {
  local b
  for b in "${BINARIES[@]}"; do [[ -x "$BIN/$b" ]] || return 1; done
}
if [[ -z "$GO" ]]; then
  if all_present; then
    echo "build.sh: Go is not installed; using the binaries already in $BIN (their match with versions.env cannot be checked)" >&2
    exit 0
  fi
  echo "build.sh: Go is not installed (no 'go' on PATH, no /usr/local/go/bin/go); the control plane cannot be built" >&2
  exit 3
fi

# Local toolchain only (no toolchain download), static binaries, and go.mod may gain missing
# entries. GOMODCACHE/GOCACHE stay in their default places outside the repo, so rebuilds are fast.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

mkdir -p "$BIN"
# One build at a time: `make test` and a developer's `make control-plane` may race.
exec 9>"$CACHE/build.lock"
flock 9

stamp_of() {
  {
    "$GO" version
    cat "$HERE/versions.env" "$HERE/build.sh"
    find "$HERE/kubernetes" "$HERE/etcd" -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 |
      sort -z | xargs -0 cat
  } | sha256sum | cut -d' ' -f1
}

STAMP="$(stamp_of)"
if all_present && [[ -f "$BIN/.stamp" && "$(cat "$BIN/.stamp")" == "$STAMP" ]]; then
  echo "build.sh: control plane binaries are up to date in $BIN (kubernetes $KUBERNETES_VERSION, etcd $ETCD_VERSION)"
  exit 0
fi
rm -f "$BIN/.stamp"

KUBE_MINOR="${KUBERNETES_VERSION#v1.}"
KUBE_MINOR="${KUBE_MINOR%%.*}"
version_flags=""
# The API server checks its own version at start-up (emulation version, storage versions), so the
# placeholder "v0.0.0-master" must be replaced with the real release.
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  version_flags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$KUBE_MINOR"
  version_flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done

started=$SECONDS
echo "build.sh: building etcd $ETCD_VERSION"
(cd "$HERE/etcd" && nice -n 10 "$GO" build -trimpath -ldflags "-s -w" -o "$BIN/etcd" .)
etcd_done=$SECONDS
echo "build.sh: building kube-apiserver, kube-controller-manager, kube-scheduler, kubectl $KUBERNETES_VERSION (a cold build takes a while)"
(cd "$HERE/kubernetes" && nice -n 10 "$GO" build -trimpath -ldflags "-s -w$version_flags" -o "$BIN/" \
  ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler ./cmd/kubectl)
finished=$SECONDS

echo "$STAMP" >"$BIN/.stamp"
line="$(date -u +%Y-%m-%dT%H:%M:%SZ) kubernetes=$KUBERNETES_VERSION etcd=$ETCD_VERSION $("$GO" version | cut -d' ' -f3) etcd_s=$((etcd_done - started)) kubernetes_s=$((finished - etcd_done)) total_s=$((finished - started)) nproc=$(nproc)"
echo "$line" >>"$CACHE/build-times.log"
echo "build.sh: done in $((finished - started))s ($line)"
