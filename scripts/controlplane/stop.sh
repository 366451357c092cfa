#!/usr/bin/env bash
# Stops the test control plane that start.sh started (by the pids it recorded, never by name) and
# removes its etcd data and kubeconfig. Certificates and binaries stay for the next start.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_CONTROLPLANE_DIR:-$ROOT/.cache/controlplane}"
BIN="${BROWSERFN_CONTROLPLANE_BIN:-$CACHE/bin}"
RUN="$CACHE/run"

mkdir -p "$CACHE"
# start.sh calls this while it holds the lock already.
if [[ -z "${BROWSERFN_CONTROLPLANE_LOCKED:-}" ]]; then
  exec 8>"$CACHE/run.lock"
  flock 8
fi

# Only a process that still runs our binary is signalled: a recycled pid is left alone.
BIN_REAL="$(realpath -m "$BIN")"
ours() {
  local pid=$1 name=$2
  [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$BIN_REAL/$name"* ]]
}

stop_one() {
  local name=$1 file="$RUN/$1.pid"
  [[ -f "$file" ]] || return 0
  local pid
  pid="$(cat "$file")"
  if ours "$pid" "$name"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 20))
    while ours "$pid" "$name" && ((SECONDS < deadline)); do sleep 0.1; done
    if ours "$pid" "$name"; then kill -KILL "$pid" 2>/dev/null || true; fi
    echo "stop.sh: stopped $name (pid $pid)"
  fi
  rm -f "$file"
}

# Dependents first: the controller manager and API server need etcd until they are gone.
stop_one kube-scheduler
stop_one kube-controller-manager
stop_one kube-apiserver
stop_one etcd
rm -rf "$RUN/etcd-data" "$RUN/kubectl-cache" "$RUN/api.port" "$CACHE/kubeconfig"
