#!/usr/bin/env bash
# Installs node and npm of deploy/node-packages.txt under ROOT/usr/local, each package fetched with
# `npm pack` and refused unless it matches its pinned integrity. Used by `make image` and by
# deploy/Dockerfile alike. Usage: install-node.sh PACKAGE_LIST ROOT DOWNLOAD_DIR
set -euo pipefail
shopt -s inherit_errexit

list="$1" root="$2" downloads="$3"
mkdir -p "$downloads" "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/usr/local/share/doc/node"

fetch() { # name@version integrity -> path of the verified tarball
  local spec="$1" integrity="$2" name="${1%@*}" version="${1##*@}"
  local file="$downloads/${name}-${version}.tgz"
  [[ -s "$file" ]] || (cd "$downloads" && npm pack --loglevel=error "$spec" >/dev/null)
  local want got
  want="$(printf '%s' "${integrity#sha512-}" | base64 -d | od -An -vtx1 | tr -d ' \n')"
  got="$(sha512sum "$file" | cut -d' ' -f1)"
  if [[ "$want" != "$got" ]]; then echo "install-node: $file does not match the integrity pinned for $spec" >&2; rm -f "$file"; exit 1; fi
  echo "$file"
}

while read -r spec integrity; do
  [[ -z "$spec" || "$spec" == \#* ]] && continue
  tarball="$(fetch "$spec" "$integrity")"
  case "${spec%@*}" in
    node-linux-*)
      tar -xzf "$tarball" -C "$root/usr/local/bin" --strip-components=2 package/bin/node
      tar -xzf "$tarball" -C "$root/usr/local/share/doc/node" --strip-components=1 package/LICENSE ;;
    npm)
      rm -rf "$root/usr/local/lib/node_modules/npm" && mkdir -p "$root/usr/local/lib/node_modules/npm"
      tar -xzf "$tarball" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
      ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
      ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx" ;;
    *) echo "install-node: do not know how to install $spec" >&2; exit 1 ;;
  esac
done < "$list"
chmod 0755 "$root/usr/local/bin/node"
