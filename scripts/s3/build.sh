#!/usr/bin/env bash
# Builds the test S3 server (versitygw, an S3-compatible gateway; its posix backend keeps objects
# as files) from its Go module into .cache/versitygw/bin, and reuses the binary while the wrapper
# module (versitygw/go.mod pins the version) and this script are unchanged (stamp file). Nothing
# built here is committed.
#
# Exit codes: 0 built or reused, 3 Go is not installed (callers skip loudly), other: build failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_S3_DIR:-$ROOT/.cache/versitygw}"
BIN="$CACHE/bin"

GO="$(command -v go || true)"
if [[ -z "$GO" && -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go; fi
if [[ -z "$GO" ]]; then
  if [[ -x "$BIN/versitygw" ]]; then
    echo "s3/build.sh: Go is not installed; using the binary already in $BIN (its match with the pinned version cannot be checked)" >&2
    exit 0
  fi
  echo "s3/build.sh: Go is not installed (no 'go' on PATH, no /usr/local/go/bin/go); the test S3 server cannot be built" >&2
  exit 3
fi

# Local toolchain only (no toolchain download) and a static binary; the module cache and build
# cache stay in Go's default places outside the repo.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod

mkdir -p "$BIN"
exec 9>"$CACHE/build.lock"
flock 9

STAMP="$({ "$GO" version; cat "$HERE/build.sh" "$HERE/versitygw/go.mod" "$HERE/versitygw/go.sum"; } | sha256sum | cut -d' ' -f1)"
if [[ -x "$BIN/versitygw" && -f "$BIN/.stamp" && "$(cat "$BIN/.stamp")" == "$STAMP" ]]; then
  echo "s3/build.sh: versitygw is up to date in $BIN"
  exit 0
fi
rm -f "$BIN/.stamp"

VERSION="$(awk '$1 == "github.com/versity/versitygw" { print $2 }' "$HERE/versitygw/go.mod")"
started=$SECONDS
echo "s3/build.sh: building versitygw $VERSION (a cold build takes a few minutes)"
(cd "$HERE/versitygw" && "$GO" build -trimpath -ldflags "-s -w" -o "$BIN/versitygw" github.com/versity/versitygw/cmd/versitygw)
finished=$SECONDS

echo "$STAMP" >"$BIN/.stamp"
line="$(date -u +%Y-%m-%dT%H:%M:%SZ) versitygw=$VERSION $("$GO" version | cut -d' ' -f3) total_s=$((finished - started)) nproc=$(nproc)"
echo "$line" >>"$CACHE/build-times.log"
echo "s3/build.sh: done in $((finished - started))s ($line)"
