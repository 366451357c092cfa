#!/usr/bin/env bash
# Renders the plain manifests of deploy/manifests/ from the chart with its default values, for users
# without Helm: release "browserfn" in namespace "browserfn". The two Secrets the chart generates
# are left out (rendered, they would hold the same key for every user): deploy/manifests/README.md
# says how to make them. `make manifests` writes them; `make chart-check` fails when they are stale.
#
# Usage: manifests.sh [out-dir]   (default: deploy/manifests)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/deploy/manifests}"
HELM="${BROWSERFN_CHART_TOOLS_DIR:-$ROOT/.cache/chart-tools}/bin/helm"
[[ -x "$HELM" ]] || bash "$HERE/build.sh"

mkdir -p "$OUT"
rm -f "$OUT"/00-crd-*.yaml
for crd in "$ROOT"/crds/*.yaml; do
  cp "$crd" "$OUT/00-crd-$(basename "$crd")"
done
rendered="$("$HELM" template browserfn "$ROOT/charts/browserfn" --namespace browserfn)"
{
  echo "# Rendered from charts/browserfn by scripts/chart/manifests.sh (make manifests); do not edit."
  echo "# Create the namespace and the two Secrets of deploy/manifests/README.md first."
  # Every object but the Secrets (helm separates objects with a line "---").
  awk 'function flush() { if (doc != "" && doc !~ /\nkind: Secret\n/) printf "%s", doc; doc = "" }
       $0 == "---" { flush() } { doc = doc $0 "\n" } END { flush() }' <<<"$rendered"
} >"$OUT/browserfn.yaml"
