#!/usr/bin/env bash
# Installs the system packages browserfn needs when they are missing: Debian's chromium and its
# headless shell (the build sessions run by default, src/config/chromium-build.ts); bubblewrap
# and passt (pasta), with which `serve` runs each pod in a sandbox of its own; ffmpeg, which encodes
# session recordings.
set -euo pipefail

missing=()
chromium_bin="${BROWSERFN_CHROMIUM_PATH:-}"
if ! [[ -n "$chromium_bin" && -x "$chromium_bin" ]]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  [[ -x /usr/lib/chromium/chromium-headless-shell ]] || missing+=(chromium-headless-shell)
fi
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v pasta >/dev/null 2>&1 || missing+=(passt)
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
if [[ ${#missing[@]} -eq 0 ]]; then exit 0; fi

if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "browserfn: installing Debian's ${missing[*]} (apt-get)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi

if [[ " ${missing[*]} " == *" chromium "* ]]; then
  cat >&2 <<'MSG'
browserfn: Chromium was not found and cannot be installed automatically.
Install it, then run the command again:
  Debian/Ubuntu:  sudo apt-get install chromium
  elsewhere:      install Chromium and set BROWSERFN_CHROMIUM_PATH=/path/to/chromium
MSG
  exit 1
fi
if [[ " ${missing[*]} " == *" chromium-headless-shell "* ]]; then
  echo "browserfn: Debian's chromium-headless-shell not found: sessions run the full Chromium, which starts about twice as slowly. Install with: sudo apt-get install chromium-headless-shell" >&2
fi
if [[ " ${missing[*]} " == *" ffmpeg "* ]]; then
  echo "browserfn: ffmpeg not found: sessions will not be recorded as video. Install with: sudo apt-get install ffmpeg" >&2
fi
sandbox_missing=()
for tool in bubblewrap passt; do [[ " ${missing[*]} " == *" $tool "* ]] && sandbox_missing+=("$tool"); done
if [[ ${#sandbox_missing[@]} -eq 0 ]]; then exit 0; fi
# Without the sandbox, `serve` still runs one project (and says so); more than one needs it.
echo "browserfn: ${sandbox_missing[*]} not found: pods will not be sandboxed, and serve accepts a single project. Install with: sudo apt-get install bubblewrap passt" >&2
