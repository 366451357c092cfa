#!/usr/bin/env bash
# Kills etcd and kube-apiserver of the running test control plane (SIGKILL, as a crash would) and
# starts them again with the same flags, ports and etcd data, then waits until the API server is
# ready. The fault tests use it to restart the store and the API server under running watches.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_CONTROLPLANE_DIR:-$ROOT/.cache/controlplane}"
BIN="$CACHE/bin"
RUN="$CACHE/run"
LOGS="$CACHE/logs"
PKI="$CACHE/pki"

exec 8>"$CACHE/run.lock"
flock 8

log() { echo "restart.sh: $*" >&2; }

BIN_REAL="$(realpath -m "$BIN")"
ours() {
  local pid=$1 name=$2
  [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$BIN_REAL/$name"* ]]
}

declare -A COMMAND
for name in kube-apiserver etcd; do
  pid="$(cat "$RUN/$name.pid" 2>/dev/null || true)"
  if [[ -z "$pid" ]] || ! ours "$pid" "$name"; then
    log "$name is not running (start the control plane with start.sh first)"
    exit 1
  fi
  # Its own command line, NUL-separated, is what it is started again with.
  COMMAND[$name]="$(tr '\0' '\n' <"/proc/$pid/cmdline")"
  kill -KILL "$pid"
  while ours "$pid" "$name"; do sleep 0.05; done
  log "killed $name (pid $pid)"
done

# Started again on the ports they had. A port may still be taken for a while after the kill (CI
# runs saw "bind: address already in use" on the API server's port, below the ephemeral range): one
# that exits is started again, and what holds its port is logged.
start_again() {
  local name=$1
  mapfile -t args <<<"${COMMAND[$name]}"
  # 8>&- : the daemons must not hold the lock start.sh and stop.sh take.
  setsid "${args[@]}" >>"$LOGS/$name.log" 2>&1 </dev/null 8>&- &
  echo $! >"$RUN/$name.pid"
  log "started $name again (pid $!)"
}
for name in etcd kube-apiserver; do start_again "$name"; done

api_port="$(cat "$RUN/api.port")"
# The ports a daemon listens on, as an `ss` pattern: the API server's one, etcd's from its own URLs.
ports_pattern() {
  if [[ $1 == kube-apiserver ]]; then echo ":$api_port "; return; fi
  grep -oE '127\.0\.0\.1:[0-9]+' <<<"${COMMAND[$1]}" | sed -E 's/.*:([0-9]+)/:\1 /' | sort -u | paste -sd'|'
}
starts=1
for _ in $(seq 1 720); do
  if curl -sf --max-time 2 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $(cat "$PKI/admin.token")" "https://127.0.0.1:$api_port/readyz" 2>/dev/null | grep -qx ok; then
    log "kube-apiserver ready again at https://127.0.0.1:$api_port"
    exit 0
  fi
  for name in etcd kube-apiserver; do
    pid="$(cat "$RUN/$name.pid")"
    if ! ours "$pid" "$name" && (( starts < 30 )); then
      log "$name (pid $pid) exited; what holds its ports:"
      ss -tanp 2>/dev/null | grep -E "$(ports_pattern "$name")" | head -n 20 >&2 || true
      sleep 1
      starts=$((starts + 1))
      start_again "$name"
    fi
  done
  sleep 0.25
done
log "kube-apiserver did not become ready again; the last lines of $LOGS/kube-apiserver.log:"
tail -n 30 "$LOGS/kube-apiserver.log" >&2 || true
exit 1
