#!/usr/bin/env bash
# Installs Debian's tools that `make image` and its test use when they are missing: mmdebstrap
# (the base root filesystem from Debian packages, no registry pull), umoci (the OCI image), skopeo
# (checks and copies the archive) and runc (the test runs the image's entry point; Debian's crun
# 1.8 refuses hosts with cgroup v1 and v2 mounted side by side, as this one is).
set -euo pipefail

declare -A package_of=([mmdebstrap]=mmdebstrap [umoci]=umoci [skopeo]=skopeo [runc]=runc)
missing=()
for tool in "${!package_of[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${package_of[$tool]}")
done
if [[ ${#missing[@]} -eq 0 ]]; then exit 0; fi

if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "browserfn image: installing Debian's ${missing[*]} (apt-get)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "browserfn image: ${missing[*]} not found; install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}) or build with Docker: docker build -f deploy/Dockerfile ." >&2
exit 1
