#!/usr/bin/env bash
# Stops the test S3 server that start.sh started (by its recorded pid, never by name) and removes
# its temp folder and credentials. The binary stays for the next start.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_S3_DIR:-$ROOT/.cache/versitygw}"
BIN="$CACHE/bin"
RUN="$CACHE/run"

mkdir -p "$CACHE"
if [[ -z "${BROWSERFN_S3_LOCKED:-}" ]]; then
  exec 8>"$CACHE/run.lock"
  flock 8
fi

# Only a process that still runs our binary is signalled: a recycled pid is left alone.
BIN_REAL="$(realpath -m "$BIN/versitygw")"
ours() { [[ "$(readlink "/proc/$1/exe" 2>/dev/null)" == "$BIN_REAL"* ]]; }

if [[ -f "$RUN/versitygw.pid" ]]; then
  pid="$(cat "$RUN/versitygw.pid")"
  if ours "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while ours "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
    if ours "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    echo "s3/stop.sh: stopped versitygw (pid $pid)"
  fi
  rm -f "$RUN/versitygw.pid"
fi
if [[ -f "$RUN/data.dir" ]]; then
  data="$(cat "$RUN/data.dir")"
  # Only a folder start.sh made.
  [[ "$data" == */browserfn-s3-* ]] && rm -rf "$data"
  rm -f "$RUN/data.dir"
fi
rm -f "$RUN/s3.env"
