#!/usr/bin/env bash
# make chart-check (also run by make test): the chart against the test control plane.
#   1. helm and kubeconform built from their Go modules (build.sh; cached in .cache/chart-tools)
#   2. charts/browserfn/crds and deploy/manifests match what they are made from
#   3. helm lint; helm template with the default values and with each test/chart/values-*.yaml
#   4. kubeconform -strict on every object against JSON Schemas made from the test API server's
#      OpenAPI and from our CRDs (kube-schemas.ts; cached in .cache/chart-tools/schemas)
#   5. bad values fail helm template with the schema's message
#   6. server-side dry-run apply of both renders
#   7. helm install (real) of both renders, `kubectl auth can-i --as` each ServiceAccount: what it
#      must and must not do; helm upgrade keeps the generated keys; then everything is removed
# Needs the test control plane running (make control-plane; make test starts it). Without Go and
# without tools built before, it skips saying why (exit 0); any failed check exits 1.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CHART="$ROOT/charts/browserfn"
TOOLS="${BROWSERFN_CHART_TOOLS_DIR:-$ROOT/.cache/chart-tools}"
CP="${BROWSERFN_CONTROLPLANE_DIR:-$ROOT/.cache/controlplane}"
HELM="$TOOLS/bin/helm"
KUBECONFORM="$TOOLS/bin/kubeconform"
KUBECTL_BIN="$CP/bin/kubectl"
export KUBECONFIG="$CP/kubeconfig"
# helm's own cache and config stay with the tools, not in the home folder.
export HELM_CACHE_HOME="$TOOLS/helm-home/cache" HELM_CONFIG_HOME="$TOOLS/helm-home/config" HELM_DATA_HOME="$TOOLS/helm-home/data"

started=$SECONDS
passed=0
failed=0
say() { echo "chart-check: $*"; }
pass() { passed=$((passed + 1)); }
fail() {
  failed=$((failed + 1))
  echo "chart-check: FAIL: $*" >&2
}
# run NAME COMMAND...: passes when the command succeeds; shows its output when it does not.
run() {
  local name=$1 out
  shift
  if out="$("$@" 2>&1)"; then pass; else fail "$name"; echo "$out" | tail -n 40 | sed 's/^/    /' >&2; fi
}

# Needs no tool, so it runs even where the rest is skipped.
run "charts/browserfn/crds differs from crds/: run make crds" diff -r "$ROOT/crds" "$CHART/crds"

bash "$HERE/build.sh"
case $? in
  0) ;;
  3) say "SKIPPED the rest: helm and kubeconform cannot be built here (Go is not installed and they were not built before)"; ((failed == 0)); exit ;;
  *) fail "helm and kubeconform did not build (scripts/chart/build.sh)"; exit 1 ;;
esac

if [[ ! -x "$KUBECTL_BIN" || ! -f "$KUBECONFIG" ]] || ! "$KUBECTL_BIN" get --raw /readyz >/dev/null 2>&1; then
  fail "the test control plane is not running (no answer with $KUBECONFIG): start it with make control-plane (make test starts it)"
  exit 1
fi
KUBECTL_CACHE="$(mktemp -d)"
WORK="$(mktemp -d)"
kubectl() { "$KUBECTL_BIN" --cache-dir "$KUBECTL_CACHE" "$@"; }

# Namespaces of this run: runs of several checkouts share one control plane.
RUN_ID="cc$(openssl rand -hex 3)"
NS_DEFAULT="$RUN_ID-default"
NS_FULL="$RUN_ID-full"
NS_A="$RUN_ID-team-a"
NS_B="$RUN_ID-team-b"
NS_OTHER="$RUN_ID-other"
cleanup() {
  "$HELM" uninstall bfn -n "$NS_DEFAULT" --wait=false >/dev/null 2>&1
  "$HELM" uninstall bfn -n "$NS_FULL" --wait=false >/dev/null 2>&1
  kubectl delete namespace "$NS_DEFAULT" "$NS_FULL" "$NS_A" "$NS_B" "$NS_OTHER" "$RUN_ID-added" --ignore-not-found --wait=false >/dev/null 2>&1
  rm -rf "$WORK" "$KUBECTL_CACHE"
}
trap cleanup EXIT

# --- 2. copies that must match their sources (the CRDs' copy is checked above)
bash "$HERE/manifests.sh" "$WORK/manifests" >/dev/null
run "deploy/manifests is stale: run make manifests" diff -r --exclude='*.md' "$WORK/manifests" "$ROOT/deploy/manifests"

# --- 3. lint and render
VALUES_FILES=("$ROOT"/test/chart/values-*.yaml)
run "helm lint (default values)" "$HELM" lint --strict "$CHART"
renders=(default)
run "helm template (default values)" sh -c "'$HELM' template bfn '$CHART' -n browserfn >'$WORK/default.yaml'"
for values in "${VALUES_FILES[@]}"; do
  name="$(basename "$values" .yaml)"
  run "helm lint -f $name" "$HELM" lint --strict "$CHART" -f "$values"
  run "helm template -f $name" sh -c "'$HELM' template bfn '$CHART' -n browserfn -f '$values' >'$WORK/$name.yaml'"
  renders+=("$name")
done

# No ClusterRole and no wildcard in any render: rights are namespaced and listed verb by verb.
for name in "${renders[@]}"; do
  if grep -nE '^kind: Cluster(Role|RoleBinding)$|^ *(- )?(verbs|resources|apiGroups|resourceNames): .*"\*"' "$WORK/$name.yaml" >"$WORK/wild.out"; then
    fail "the $name render grants cluster-wide or wildcard rights: $(tr '\n' ' ' <"$WORK/wild.out")"
  else pass; fi
done

# The operator's proxy for browsers comes from the Secret named, into the API and the operator, never in plain text.
proxy_refs="$(grep -c 'name: BROWSERFN_BROWSER_PROXY$' "$WORK/values-full.yaml")"
if [[ "$proxy_refs" == 2 ]] && grep -q 'secretKeyRef: { name: browserfn-browser-proxy, key: url }' "$WORK/values-full.yaml" &&
  ! grep -q 'BROWSERFN_BROWSER_PROXY' "$WORK/default.yaml"; then pass
else fail "the values-full render does not read BROWSERFN_BROWSER_PROXY from its Secret in the API and the operator (found it $proxy_refs times), or the default render names it"; fi

# The Chromium build sessions run: the image's headless shell by default, the full browser when chosen.
if grep -q 'BROWSERFN_CHROMIUM_PATH: "/usr/lib/chromium/chromium-headless-shell"' "$WORK/default.yaml" &&
  grep -q 'BROWSERFN_CHROMIUM_PATH: "/usr/bin/chromium"' "$WORK/values-full.yaml"; then pass
else fail "the default render does not run the headless shell, or the values-full render (browserPods.chromiumBuild: chromium) not the full browser"; fi

# /metrics asks for a bearer token: the API and the operator read it from the chart's Secret, and the ServiceMonitor sends it.
metrics_refs="$(grep -c 'name: BROWSERFN_METRICS_TOKEN$' "$WORK/default.yaml")"
if [[ "$metrics_refs" == 2 ]] && grep -q 'valueFrom: { secretKeyRef: { name: bfn-browserfn-metrics-token, key: token } }' "$WORK/default.yaml" &&
  "$HELM" template bfn "$CHART" -n browserfn --set serviceMonitor.enabled=true | grep -q 'credentials: { name: bfn-browserfn-metrics-token, key: token }'; then pass
else fail "the default render does not give the API and the operator BROWSERFN_METRICS_TOKEN from its Secret (found it $metrics_refs times), or the ServiceMonitor does not send it"; fi

# --- 4. kubeconform against the server's own schemas and our CRDs'
server_version="$(kubectl version -o json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).serverVersion.gitVersion))')"
crds_hash="$(cat "$ROOT"/crds/*.yaml "$HERE/kube-schemas.ts" | sha256sum | cut -c1-16)"
SCHEMAS="$TOOLS/schemas/$server_version-$crds_hash"
if [[ ! -d "$SCHEMAS" ]]; then
  # Made aside and renamed into place: checks of other checkouts may read the same folder.
  kubectl get --raw /openapi/v2 >"$WORK/openapi-v2.json" &&
    (cd "$ROOT" && npx esbuild scripts/chart/kube-schemas.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/scripts/kube-schemas.mjs --log-level=warning) &&
    (cd "$ROOT" && node dist/scripts/kube-schemas.mjs "$WORK/openapi-v2.json" "$ROOT/crds" "$WORK/schemas") &&
    { mkdir -p "$(dirname "$SCHEMAS")" && mv -T "$WORK/schemas" "$SCHEMAS" 2>/dev/null || [[ -d "$SCHEMAS" ]]; } ||
    fail "making the JSON Schemas from the API server's OpenAPI"
fi
# The Prometheus Operator's CRDs are not on the test API server: ServiceMonitor is checked by the schema of values only.
KC=("$KUBECONFORM" -strict -summary -output text -skip ServiceMonitor -schema-location "$SCHEMAS/{{ .Group }}_{{ .ResourceAPIVersion }}_{{ .ResourceKind }}.json")
for name in "${renders[@]}"; do run "kubeconform -strict: $name render" "${KC[@]}" "$WORK/$name.yaml"; done
run "kubeconform -strict: crds/, deploy/manifests/, deploy/examples/" "${KC[@]}" "$ROOT"/crds/*.yaml "$ROOT"/deploy/manifests/*.yaml "$ROOT"/deploy/examples/*.yaml
# kubeconform must refuse what the server would: a typo in a field.
sed 's/^  replicas: 2$/  replicaz: 2/' "$WORK/default.yaml" >"$WORK/typo.yaml"
if "${KC[@]}" "$WORK/typo.yaml" >"$WORK/typo.out" 2>&1 || ! grep -q "replicaz" "$WORK/typo.out"; then
  fail "kubeconform accepted a Deployment with an unknown field (replicaz): are the schemas strict?"
else pass; fi

# --- 5. bad values fail at install, with the schema's message
bad_value() {
  local expected=$1 out
  shift
  if out="$("$HELM" template bfn "$CHART" "$@" 2>&1 >/dev/null)"; then
    fail "helm template accepted bad values: $*"
  elif [[ "$out" != *"$expected"* ]]; then
    fail "helm template refused $* without saying \"$expected\": $out"
  else pass; fi
}
bad_value "at '/operator/replicas': got string, want integer" --set operator.replicas=two
bad_value "additional properties 'replica' not allowed" --set api.replica=3
bad_value "additional properties 'apiKey' not allowed" --set apiKey=abc
bad_value "'Team_A' does not match pattern" --set 'projects[0].namespace=Team_A'
bad_value "at '/artifactStore/type': value must be one of 'filesystem', 's3'" --set artifactStore.type=gcs
bad_value "at '/artifactStore/s3/bucket': minLength: got 0, want 1" --set artifactStore.type=s3
bad_value "at '/concurrency/maxInvocations': minimum: got 0, want 1" --set concurrency.maxInvocations=0
bad_value "invalid propertyName 'BROWSERFN_WATCH_NAMESPACES'" --set extraEnv.BROWSERFN_WATCH_NAMESPACES=x
bad_value "'10.0.0.0' does not match pattern" --set 'networkPolicy.blockedCIDRs[0]=10.0.0.0'
bad_value "warmPool.size must not exceed warmPool.maxSize" --set warmPool.size=9
bad_value "browserPods.shmSizeMB must not exceed browserPods.memoryLimitMB" --set browserPods.shmSizeMB=4096
bad_value "at '/browserPods/memoryLimitMB': minimum: got 32, want 64" --set browserPods.memoryLimitMB=32
bad_value "at '/browserPods/chromiumBuild': value must be one of 'headless-shell', 'chromium'" --set browserPods.chromiumBuild=firefox

# --- 6 and 7 on the test API server: namespaces of this run, the ServiceMonitor left out (no CRD there)
kubectl create namespace "$NS_DEFAULT" >/dev/null && kubectl create namespace "$NS_FULL" >/dev/null &&
  kubectl create namespace "$NS_B" >/dev/null && kubectl create namespace "$NS_OTHER" >/dev/null ||
  { fail "creating the namespaces of this run"; exit 1; }
FULL_ARGS=(-f "$ROOT/test/chart/values-full.yaml" --set serviceMonitor.enabled=false
  --set-json "projects=[{\"namespace\":\"$NS_A\",\"create\":true},{\"namespace\":\"$NS_B\"}]")
run "server-side dry-run: default render" sh -c "'$HELM' template bfn '$CHART' -n '$NS_DEFAULT' | '$KUBECTL_BIN' --cache-dir '$KUBECTL_CACHE' apply --dry-run=server -f -"
# The dry run does not create namespace team-a that the render itself creates: make it for the Roles there.
kubectl create namespace "$NS_A" >/dev/null
run "server-side dry-run: values-full render" sh -c "'$HELM' template bfn '$CHART' -n '$NS_FULL' $(printf "'%s' " "${FULL_ARGS[@]}") | '$KUBECTL_BIN' --cache-dir '$KUBECTL_CACHE' apply --dry-run=server -f -"
kubectl delete namespace "$NS_A" --wait=true --timeout=60s >/dev/null 2>&1

# NOTES.txt tells how to read the key, reach the API, publish and invoke.
if notes="$("$HELM" install bfn "$CHART" -n "$NS_DEFAULT" 2>&1)"; then
  for step in "get secret bfn-browserfn-api-keys -o jsonpath='{.data.BROWSERFN_API_KEYS}'" "port-forward svc/bfn-browserfn-api 3000:80" \
    "export BROWSERFN_API_KEY=" "npx browserfn publish fn/index.ts" "npx browserfn invoke <functionId>"; do
    if [[ "$notes" == *"$step"* ]]; then pass; else fail "helm install's NOTES do not say \"$step\""; fi
  done
else
  fail "helm install (default values)"
  echo "$notes" | tail -n 20 >&2
fi
run "helm install (values-full)" "$HELM" install bfn "$CHART" -n "$NS_FULL" "${FULL_ARGS[@]}"

# can NS SA-NAMESPACE SA yes|no VERB RESOURCE [kubectl flags]: one `kubectl auth can-i --as`.
# Each question runs as a background job (a few at a time); answers() waits and counts them.
mkdir -p "$WORK/answers"
asked=0
ask() {
  asked=$((asked + 1))
  "$@" >"$WORK/answers/$asked" &
  while (($(jobs -rp | wc -l) >= 6)); do wait -n; done
}
answers() {
  wait
  local file line
  for file in "$WORK"/answers/*; do
    [[ -f "$file" ]] || continue
    line="$(cat "$file")"
    if [[ "$line" == pass ]]; then pass; else fail "$line"; fi
    rm -f "$file"
  done
}
can() { ask can_now "$@"; }
can_now() {
  local ns=$1 sa_ns=$2 sa=$3 want=$4 got scope
  shift 4
  if [[ "$ns" == "*" ]]; then scope=(--all-namespaces); else scope=(-n "$ns"); fi
  got="$(kubectl auth can-i "$@" "${scope[@]}" --as "system:serviceaccount:$sa_ns:$sa" 2>/dev/null)"
  if [[ "$got" == "$want" ]]; then echo pass; else echo "$sa may $* in ${ns/\*/every namespace}: want $want, got ${got:-an error}"; fi
}
# sar NS SA-NAMESPACE SA yes|no VERB GROUP RESOURCE [SUBRESOURCE]: the same question as a SubjectAccessReview,
# for kinds whose CRD is not on the server yet (kubectl auth can-i cannot name their group then).
sar() { ask sar_now "$@"; }
sar_now() {
  local ns=$1 sa_ns=$2 sa=$3 want=$4 verb=$5 group=$6 resource=$7 subresource=${8:-} got
  got="$(kubectl create -o 'jsonpath={.status.allowed}' -f - 2>&1 <<EOF
{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
 "spec": {"user": "system:serviceaccount:$sa_ns:$sa", "groups": ["system:serviceaccounts", "system:serviceaccounts:$sa_ns", "system:authenticated"],
          "resourceAttributes": {"namespace": "$ns", "verb": "$verb", "group": "$group", "resource": "$resource", "subresource": "$subresource"}}}
EOF
)"
  case "$got" in true) got=yes ;; false | "") got=no ;; esac
  if [[ "$got" == "$want" ]]; then echo pass; else echo "$sa may $verb $resource${subresource:+/$subresource} in $ns: want $want, got $got"; fi
}
OP=bfn-browserfn-operator
API=bfn-browserfn-api
# The operator of values-full, in both projects.
for ns in "$NS_A" "$NS_B"; do
  for verb in get list watch create update delete; do
    can "$ns" "$NS_FULL" $OP yes "$verb" pods
    can "$ns" "$NS_FULL" $OP yes "$verb" configmaps
    sar "$ns" "$NS_FULL" $OP yes "$verb" browserfn.dev browserpools
  done
  for verb in get list watch create update; do can "$ns" "$NS_FULL" $OP yes "$verb" functions.v1alpha1.browserfn.dev; done
  for verb in get list watch create delete; do can "$ns" "$NS_FULL" $OP yes "$verb" builds.v1alpha1.browserfn.dev; done
  for verb in get list watch delete; do can "$ns" "$NS_FULL" $OP yes "$verb" invocations.v1alpha1.browserfn.dev; done
  for kind in functions builds invocations; do can "$ns" "$NS_FULL" $OP yes update "$kind.v1alpha1.browserfn.dev" --subresource status; done
  sar "$ns" "$NS_FULL" $OP yes update browserfn.dev browserpools status
  for verb in get create update; do can "$ns" "$NS_FULL" $OP yes "$verb" secrets; done
  for verb in list watch delete; do can "$ns" "$NS_FULL" $OP no "$verb" secrets; done
  can "$ns" "$NS_FULL" $OP no create invocations.v1alpha1.browserfn.dev
  can "$ns" "$NS_FULL" $OP no update builds.v1alpha1.browserfn.dev
  can "$ns" "$NS_FULL" $OP no delete functions.v1alpha1.browserfn.dev
  can "$ns" "$NS_FULL" $OP no patch pods
  can "$ns" "$NS_FULL" $OP no create pods --subresource exec
  can "$ns" "$NS_FULL" $OP no '*' '*'
done
can "$NS_FULL" "$NS_FULL" $OP yes create leases.coordination.k8s.io
can "$NS_FULL" "$NS_FULL" $OP yes get leases.coordination.k8s.io/browserfn-controllers
can "$NS_FULL" "$NS_FULL" $OP yes update leases.coordination.k8s.io/browserfn-controllers
can "$NS_FULL" "$NS_FULL" $OP no update leases.coordination.k8s.io/another-lease
can "$NS_A" "$NS_FULL" $OP no create leases.coordination.k8s.io
# The API of values-full, in both projects.
for ns in "$NS_A" "$NS_B"; do
  for verb in get list update; do can "$ns" "$NS_FULL" $API yes "$verb" functions.v1alpha1.browserfn.dev; done
  for verb in get list create delete; do can "$ns" "$NS_FULL" $API yes "$verb" builds.v1alpha1.browserfn.dev; done
  for verb in get list create update watch; do can "$ns" "$NS_FULL" $API yes "$verb" invocations.v1alpha1.browserfn.dev; done
  for verb in get list create update delete; do
    can "$ns" "$NS_FULL" $API yes "$verb" configmaps
    can "$ns" "$NS_FULL" $API yes "$verb" secrets
  done
  for verb in get update watch; do can "$ns" "$NS_FULL" $API yes "$verb" pods; done
  for verb in list create delete patch; do can "$ns" "$NS_FULL" $API no "$verb" pods; done
  can "$ns" "$NS_FULL" $API no watch secrets
  can "$ns" "$NS_FULL" $API no delete functions.v1alpha1.browserfn.dev
  can "$ns" "$NS_FULL" $API no delete invocations.v1alpha1.browserfn.dev
  can "$ns" "$NS_FULL" $API no update invocations.v1alpha1.browserfn.dev --subresource status
  sar "$ns" "$NS_FULL" $API no get browserfn.dev browserpools
  can "$ns" "$NS_FULL" $API no '*' '*'
done
can "$NS_FULL" "$NS_FULL" $API no get leases.coordination.k8s.io
# Neither reaches Secrets, Pods or ConfigMaps outside the projects, nor anything cluster-wide.
for sa in $OP $API; do
  for ns in "$NS_FULL" "$NS_OTHER" kube-system default; do
    can "$ns" "$NS_FULL" $sa no get secrets
    can "$ns" "$NS_FULL" $sa no list secrets
    can "$ns" "$NS_FULL" $sa no get pods
    can "$ns" "$NS_FULL" $sa no list configmaps
    can "$ns" "$NS_FULL" $sa no list functions.v1alpha1.browserfn.dev
  done
  can "*" "$NS_FULL" $sa no list secrets
  can "*" "$NS_FULL" $sa no list pods
  can "*" "$NS_FULL" $sa no watch configmaps
  can "*" "$NS_FULL" $sa no list functions.v1alpha1.browserfn.dev
  can "*" "$NS_FULL" $sa no '*' '*'
  can "*" "$NS_FULL" $sa no list namespaces
  can "*" "$NS_FULL" $sa no create clusterroles.rbac.authorization.k8s.io
  can "$NS_A" "$NS_FULL" $sa no create rolebindings.rbac.authorization.k8s.io
done
# The default install: its one project is the release namespace.
can "$NS_DEFAULT" "$NS_DEFAULT" $API yes create secrets
can "$NS_DEFAULT" "$NS_DEFAULT" $OP yes watch pods
can "$NS_OTHER" "$NS_DEFAULT" $API no get secrets
can "$NS_FULL" "$NS_DEFAULT" $OP no list pods
can "*" "$NS_DEFAULT" $OP no list pods

answers

# Generated once: an upgrade that adds a project keeps the keys and the pod-token secret, and makes one key more.
secret_value() { kubectl -n "$NS_DEFAULT" get secret "$1" -o "jsonpath={.data.$2}" | base64 -d; }
keys_before="$(secret_value bfn-browserfn-api-keys BROWSERFN_API_KEYS)"
token_before="$(secret_value bfn-browserfn-pod-token BROWSERFN_POD_TOKEN_SECRET)"
metrics_before="$(secret_value bfn-browserfn-metrics-token token)"
kubectl create namespace "$RUN_ID-added" >/dev/null
run "helm upgrade (a project added)" "$HELM" upgrade bfn "$CHART" -n "$NS_DEFAULT" --set-json "projects=[{\"namespace\":\"$NS_DEFAULT\"},{\"namespace\":\"$RUN_ID-added\"}]"
keys_after="$(secret_value bfn-browserfn-api-keys BROWSERFN_API_KEYS)"
token_after="$(secret_value bfn-browserfn-pod-token BROWSERFN_POD_TOKEN_SECRET)"
metrics_after="$(secret_value bfn-browserfn-metrics-token token)"
if [[ "$keys_before" =~ ^bfn_[A-Za-z0-9]{32}:$NS_DEFAULT$ && "$keys_after" =~ ^$keys_before,bfn_[A-Za-z0-9]{32}:$RUN_ID-added$ && ${#token_before} -eq 48 && "$token_after" == "$token_before" &&
  ${#metrics_before} -eq 48 && "$metrics_after" == "$metrics_before" ]]; then
  pass
else
  fail "helm upgrade did not keep the generated secrets: keys '$keys_before' -> '$keys_after', pod-token kept: $([[ "$token_after" == "$token_before" ]] && echo yes || echo no), metrics token kept: $([[ -n "$metrics_before" && "$metrics_after" == "$metrics_before" ]] && echo yes || echo no)"
fi
can "$RUN_ID-added" "$NS_DEFAULT" $API yes create secrets
answers

say "$passed passed, $failed failed ($((SECONDS - started)) s)"
((failed == 0))
