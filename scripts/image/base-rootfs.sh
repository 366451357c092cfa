#!/usr/bin/env bash
# Builds the image's base layer from Debian packages (no registry pull): bookworm's essential set
# plus deploy/debian-packages.txt, and the browserfn user (uid 10001, as the pod templates run).
# Cached under .cache/image/base by a hash of the package list and this script, so only a change
# to either rebuilds it. Prints the path of the layer tarball.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
list="$root/deploy/debian-packages.txt"
cache="$root/.cache/image/base"
key="$(cat "$list" "$0" | sha256sum | cut -c1-16)"
layer="$cache/base-$key.tar"
if [[ -s "$layer" ]]; then echo "$layer"; exit 0; fi

mkdir -p "$cache"
packages="$(grep -v '^\s*#' "$list" | grep -v '^\s*$' | paste -sd, -)"
# Layers are dated by the package list's commit, so the same list gives the same tarball.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct -- "$list" 2>/dev/null || echo 0)}"
echo "browserfn image: building the Debian base layer ($packages); this takes minutes the first time" >&2
tmp="$layer.partial"
trap 'rm -f "$tmp"' EXIT
# essential: no apt nor package manager in the image; docs, man pages and locales dropped (the
# copyright files stay); no device nodes (the runtime provides /dev). The user's entry is written
# directly: useradd is not in the essential set.
nice -n 10 mmdebstrap --quiet --variant=essential --format=tar --skip=output/dev \
  --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --customize-hook='echo "browserfn:x:10001:10001:browserfn:/home/browserfn:/usr/sbin/nologin" >> "$1/etc/passwd"' \
  --customize-hook='echo "browserfn:x:10001:" >> "$1/etc/group"' \
  --customize-hook='echo "browserfn:!:0:0:99999:7:::" >> "$1/etc/shadow"' \
  --customize-hook='install -d -o 10001 -g 10001 -m 0750 "$1/home/browserfn"' \
  --customize-hook='chroot "$1" dpkg-query -W -f="\${Package}=\${Version}\n" > "$1/usr/share/doc/browserfn-debian-packages.txt"' \
  bookworm "$tmp"
mv "$tmp" "$layer"
# Base layers of earlier package lists go: each is about 1 GB.
find "$cache" -maxdepth 1 -name 'base-*.tar' ! -name "$(basename "$layer")" -delete
echo "$layer"
