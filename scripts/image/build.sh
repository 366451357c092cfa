#!/usr/bin/env bash
# `make image`: the image of deploy/Dockerfile, built without a Docker daemon into an OCI archive,
# .cache/image/browserfn-<version>.oci.tar (tag <version>). Three layers: the Debian base
# (base-rootfs.sh), node and npm (install-node.sh), and the app (dist/src, production
# node_modules, the launchers of deploy/image/bin). Expects `make build` to have run.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="$root/.cache/image"
version="$(node -p "require('$root/package.json').version")"
out="$cache/browserfn-$version.oci.tar"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}"
created="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
# A failed build leaves no archive of an older build under this name for the test to run.
rm -f "$out"
mkdir -p "$cache/work"
[[ -f "$root/dist/src/cli/main.js" ]] || { echo "make image: dist/src is missing; run npx tsc -b first" >&2; exit 1; }

# One tar per layer, root-owned, sorted and dated by SOURCE_DATE_EPOCH so the same input gives
# the same layer digest.
layer_tar() { # DIR TAR
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -C "$1" -cf "$2" .
}
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

base_tar="$(bash "$root/scripts/image/base-rootfs.sh")"

# The base and node layers change rarely: the OCI layout holding them is cached by their inputs,
# so a rebuild only compresses the app layer.
node_key="$(hash_of "$root/deploy/node-packages.txt" "$root/scripts/image/install-node.sh")"
lower="$cache/layout-$(basename "$base_tar" .tar)-node-$node_key"
if [[ ! -f "$lower/index.json" ]]; then
  echo "browserfn image: adding the base and node layers (compressing about 1 GB)" >&2
  rm -rf "$lower.partial" "$cache/work/node-root" && mkdir -p "$cache/work/node-root"
  bash "$root/scripts/image/install-node.sh" "$root/deploy/node-packages.txt" "$cache/work/node-root" "$cache/downloads"
  layer_tar "$cache/work/node-root" "$cache/work/node.tar"
  umoci init --layout "$lower.partial"
  umoci new --image "$lower.partial:base"
  nice -n 10 umoci raw add-layer --image "$lower.partial:base" --history.created "$created" --history.created_by "Debian bookworm: deploy/debian-packages.txt (scripts/image/base-rootfs.sh)" "$base_tar"
  nice -n 10 umoci raw add-layer --image "$lower.partial:base" --history.created "$created" --history.created_by "node and npm: deploy/node-packages.txt" "$cache/work/node.tar"
  rm -rf "$cache/work/node-root" "$cache/work/node.tar"
  mv "$lower.partial" "$lower"
fi

# Production node_modules from the lockfile, cached by it.
modules_key="$(hash_of "$root/package.json" "$root/package-lock.json")"
modules="$cache/node-modules-$modules_key"
if [[ ! -d "$modules/node_modules" ]]; then
  echo "browserfn image: npm ci --omit=dev" >&2
  rm -rf "$modules.partial" && mkdir -p "$modules.partial"
  cp "$root/package.json" "$root/package-lock.json" "$modules.partial/"
  (cd "$modules.partial" && nice -n 10 npm ci --omit=dev --no-audit --no-fund --loglevel=error)
  mv "$modules.partial" "$modules"
fi
# Caches of earlier inputs go: each is hundreds of MB.
find "$cache" -maxdepth 1 \( -name 'layout-*' ! -name "$(basename "$lower")" -o -name 'node-modules-*' ! -name "$(basename "$modules")" \) -exec rm -rf {} +

app="$cache/work/app-root"
rm -rf "$app" && mkdir -p "$app/app/dist" "$app/usr/local/bin"
cp -a "$modules/node_modules" "$root/package.json" "$root/package-lock.json" "$app/app/"
cp -a "$root/dist/src" "$app/app/dist/src"
install -m 0755 "$root/deploy/image/bin/browserfn" "$root/deploy/image/bin/chromium" "$app/usr/local/bin/"
chmod -R u=rwX,go=rX "$app/app"
layer_tar "$app" "$cache/work/app.tar"
rm -rf "$app"

layout="$cache/work/layout"
rm -rf "$layout" && cp -al "$lower" "$layout"
# index.json is rewritten in place by umoci; the cached layout keeps its own copy.
cp --remove-destination "$lower/index.json" "$layout/index.json"
umoci raw add-layer --image "$layout:base" --tag "$version" --history.created "$created" --history.created_by "browserfn $version: dist/src, production node_modules" "$cache/work/app.tar"
rm -f "$cache/work/app.tar"
umoci config --image "$layout:$version" \
  --config.user 10001:10001 \
  --config.entrypoint /usr/bin/tini --config.entrypoint -- --config.entrypoint browserfn \
  --config.cmd --help \
  --config.workingdir /home/browserfn \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.env HOME=/home/browserfn \
  --config.env BROWSERFN_CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell \
  --config.label org.opencontainers.image.title=browserfn \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label org.opencontainers.image.licenses=Apache-2.0 \
  --created "$created" --history.created "$created" \
  --history.created_by "browserfn $version: entry point, user and environment (deploy/Dockerfile's)"
umoci rm --image "$layout:base"
umoci gc --layout "$layout"
# An oci-archive is a tar of the layout: skopeo, podman and buildah read it as it is.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -C "$layout" -cf "$out.partial" .
mv "$out.partial" "$out"
rm -rf "$layout"
echo "$out"
