#!/usr/bin/env bash
# Installs the system packages browserfn needs (Debian's chromium) when they are missing.
set -euo pipefail

chromium_bin="${BROWSERFN_CHROMIUM_PATH:-}"
if [[ -n "$chromium_bin" && -x "$chromium_bin" ]]; then exit 0; fi
if command -v chromium >/dev/null 2>&1; then exit 0; fi

if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "browserfn: installing Debian's chromium (apt-get)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
  command -v chromium >/dev/null && exit 0
fi

cat >&2 <<'MSG'
browserfn: Chromium was not found and cannot be installed automatically.
Install it, then run the command again:
  Debian/Ubuntu:  sudo apt-get install chromium
  elsewhere:      install Chromium and set BROWSERFN_CHROMIUM_PATH=/path/to/chromium
MSG
exit 1
