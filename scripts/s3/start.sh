#!/usr/bin/env bash
# Starts the test S3 server (versitygw, posix backend in a fresh temp folder) on 127.0.0.1 at a
# random port with fresh root credentials, and writes .cache/versitygw/run/s3.env
# (BROWSERFN_TEST_S3_ENDPOINT, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY) for the tests. A server that
# already answers is reused. Builds the binary first when needed (build.sh).
#
# Exit codes: 0 running, 3 Go is not installed (nothing to run), other: start-up failed (see logs/).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_S3_DIR:-$ROOT/.cache/versitygw}"
BIN="$CACHE/bin"
RUN="$CACHE/run"
LOGS="$CACHE/logs"
ENV_OUT="$RUN/s3.env"

mkdir -p "$CACHE"
exec 8>"$CACHE/run.lock"
flock 8

log() { echo "s3/start.sh: $*" >&2; }

answers() {
  [[ -f "$ENV_OUT" && -f "$RUN/versitygw.pid" ]] && kill -0 "$(cat "$RUN/versitygw.pid")" 2>/dev/null || return 1
  # Any HTTP answer will do: an anonymous request is refused, which proves the server listens.
  # shellcheck disable=SC1090
  (source "$ENV_OUT" && curl -s -o /dev/null --max-time 2 "$BROWSERFN_TEST_S3_ENDPOINT/")
}

if answers; then
  log "reusing the running S3 server ($ENV_OUT)"
  exit 0
fi
export BROWSERFN_S3_LOCKED=1
bash "$HERE/stop.sh" >/dev/null

bash "$HERE/build.sh"

mkdir -p "$RUN" "$LOGS"
PORT="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
DATA="$(mktemp -d "${TMPDIR:-/tmp}/browserfn-s3-XXXXXX")"
echo "$DATA" >"$RUN/data.dir"
ACCESS="test$(openssl rand -hex 8)"
SECRET="$(openssl rand -hex 24)"

# Object metadata in a sidecar folder: the temp folder's filesystem may lack extended attributes.
mkdir -p "$DATA/objects" "$DATA/meta"
setsid "$BIN/versitygw" --port "127.0.0.1:$PORT" --access "$ACCESS" --secret "$SECRET" --quiet \
  posix --sidecar "$DATA/meta" "$DATA/objects" >"$LOGS/versitygw.log" 2>&1 </dev/null 8>&- &
echo $! >"$RUN/versitygw.pid"

umask 077
cat >"$ENV_OUT" <<ENV
BROWSERFN_TEST_S3_ENDPOINT=http://127.0.0.1:$PORT
BROWSERFN_TEST_S3_ACCESS_KEY_ID=$ACCESS
BROWSERFN_TEST_S3_SECRET_ACCESS_KEY=$SECRET
ENV

deadline=$((SECONDS + 30))
until answers; do
  if ((SECONDS >= deadline)) || ! kill -0 "$(cat "$RUN/versitygw.pid")" 2>/dev/null; then
    log "versitygw did not start; the last lines of $LOGS/versitygw.log:"
    tail -n 30 "$LOGS/versitygw.log" >&2 || true
    bash "$HERE/stop.sh" >/dev/null || true
    exit 1
  fi
  sleep 0.2
done
log "S3 server ready at http://127.0.0.1:$PORT (credentials: $ENV_OUT, objects under $DATA)"
