#!/usr/bin/env bash
# Starts the test control plane on 127.0.0.1 only: etcd, kube-apiserver (token auth, RBAC) and a
# kube-controller-manager running just the garbage collector and the namespace controller. Applies
# crds/, waits until they are Established and the garbage collector works, then writes
# .cache/controlplane/kubeconfig (an admin in system:masters). A control plane that already answers
# is reused (the CRDs are re-applied). Builds the binaries first when needed (build.sh).
#
# BROWSERFN_CONTROLPLANE_WORKLOADS=1 starts a control plane that runs workloads instead, for the
# chart's install test (test/chart/install-e2e.test.ts), in a folder of its own
# (BROWSERFN_CONTROLPLANE_DIR) so no other test's pod is ever scheduled: ServiceAccount admission
# on, kube-scheduler, and the Deployment, ReplicaSet, ServiceAccount, root CA publisher and node
# lifecycle controllers (no EndpointSlices: loopback pod addresses are not valid endpoints). BROWSERFN_CONTROLPLANE_BIN names the binaries to share (default: bin/).
#
# Exit codes: 0 running, 3 Go is not installed (nothing to run), other: start-up failed (see logs/).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${BROWSERFN_CONTROLPLANE_DIR:-$ROOT/.cache/controlplane}"
BIN="${BROWSERFN_CONTROLPLANE_BIN:-$CACHE/bin}"
WORKLOADS="${BROWSERFN_CONTROLPLANE_WORKLOADS:-}"
PKI="$CACHE/pki"
RUN="$CACHE/run"
LOGS="$CACHE/logs"
KUBECONFIG_OUT="$CACHE/kubeconfig"
ADMIN_KUBECONFIG="$PKI/admin.kubeconfig"
CRDS="$ROOT/crds"

mkdir -p "$CACHE"
exec 8>"$CACHE/run.lock"
flock 8

log() { echo "start.sh: $*" >&2; }

# Bounded poll: `wait_until SECONDS WHAT COMMAND...` retries COMMAND every 0.25 s.
wait_until() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "timed out after ${limit}s waiting for $what"
      return 1
    fi
    sleep 0.25
  done
}

# kubectl keeps its discovery cache with the control plane (not in ~/.kube), and it is dropped
# whenever the CRDs are applied so that new kinds, short names and categories resolve at once.
KUBECTL_CACHE="$RUN/kubectl-cache"
kubectl_admin() { "$BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" --cache-dir "$KUBECTL_CACHE" "$@"; }

apply_crds() {
  kubectl_admin apply --server-side --force-conflicts -f "$CRDS" >/dev/null
  kubectl_admin wait --for condition=Established --timeout=60s -f "$CRDS" >/dev/null
  rm -rf "$KUBECTL_CACHE"
}

api_ready() {
  [[ -f "$ADMIN_KUBECONFIG" && -f "$RUN/api.port" ]] || return 1
  curl -sf --max-time 2 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $(cat "$PKI/admin.token")" \
    "https://127.0.0.1:$(cat "$RUN/api.port")/readyz" | grep -qx ok
}

pid_alive() {
  local file="$RUN/$1.pid"
  [[ -f "$file" ]] && kill -0 "$(cat "$file")" 2>/dev/null
}

if pid_alive etcd && pid_alive kube-apiserver && pid_alive kube-controller-manager && { [[ -z "$WORKLOADS" ]] || pid_alive kube-scheduler; } && api_ready; then
  apply_crds
  cp "$ADMIN_KUBECONFIG" "$KUBECONFIG_OUT"
  log "reusing the running control plane at https://127.0.0.1:$(cat "$RUN/api.port") (kubeconfig: $KUBECONFIG_OUT)"
  exit 0
fi
# A partial or dead control plane: clear it and start afresh (stop.sh runs under our lock).
export BROWSERFN_CONTROLPLANE_LOCKED=1
bash "$HERE/stop.sh" >/dev/null

BROWSERFN_CONTROLPLANE_DIR="$(dirname "$BIN")" bash "$HERE/build.sh"

mkdir -p "$PKI" "$RUN" "$LOGS"
rm -f "$KUBECONFIG_OUT"

# A free port below the kernel's ephemeral range: restart.sh listens on the same ports again, and a
# port from that range can meanwhile be the local end of any outgoing connection (the API server's
# re-listen once failed with "address already in use" so).
free_port() {
  node -e '
    const net = require("net");
    let low = 32768;
    try { low = Number(require("fs").readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || low; } catch {}
    const from = Math.max(1024, low - 10000);
    const attempt = (left) => {
      const port = left > 0 && low > from ? from + Math.floor(Math.random() * (low - from)) : 0;
      const s = net.createServer();
      s.once("error", () => attempt(left - 1));
      s.listen(port, "127.0.0.1", () => { console.log(s.address().port); s.close(); });
    };
    attempt(50);'
}

# Certificates and keys live across restarts; only a missing file is made again.
if [[ ! -f "$PKI/ca.crt" ]]; then
  log "creating certificates and service-account keys with openssl"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=browserfn-test-ca" \
    -keyout "$PKI/ca.key" -out "$PKI/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$PKI/apiserver.key" -out "$PKI/apiserver.csr" 2>/dev/null
  openssl x509 -req -in "$PKI/apiserver.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 3650 \
    -out "$PKI/apiserver.crt" -extfile <(printf '%s\n' \
      "subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" \
      "extendedKeyUsage=serverAuth" "keyUsage=digitalSignature,keyEncipherment") 2>/dev/null
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  rm -f "$PKI/apiserver.csr"
fi
# A fresh admin token per start: a leaked kubeconfig stops working with the next start.
openssl rand -hex 24 >"$PKI/admin.token"
TOKEN="$(cat "$PKI/admin.token")"
umask 077
# The controller manager uses the admin identity too: a test control plane needs no finer roles.
printf '%s,admin,admin,system:masters\n' "$TOKEN" >"$PKI/tokens.csv"
umask 022

ETCD_PORT="${BROWSERFN_ETCD_PORT:-$(free_port)}"
ETCD_PEER_PORT="$(free_port)"
API_PORT="${BROWSERFN_APISERVER_PORT:-$(free_port)}"
echo "$API_PORT" >"$RUN/api.port"

cat >"$ADMIN_KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: browserfn-test
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: admin
  user:
    token: $TOKEN
contexts:
- name: browserfn-test
  context:
    cluster: browserfn-test
    user: admin
current-context: browserfn-test
EOF
chmod 600 "$ADMIN_KUBECONFIG"

# Starts a binary detached from the caller's session; its pid goes to run/NAME.pid.
launch() {
  local name=$1
  shift
  # 8>&- : the daemons must not inherit (and so hold) the lock that start.sh and stop.sh take.
  setsid "$BIN/$name" "$@" >"$LOGS/$name.log" 2>&1 </dev/null 8>&- &
  echo $! >"$RUN/$name.pid"
}

fail() {
  log "$1; the last lines of $LOGS/$2.log:"
  tail -n 30 "$LOGS/$2.log" >&2 || true
  bash "$HERE/stop.sh" >/dev/null || true
  exit 1
}

log "starting etcd on 127.0.0.1:$ETCD_PORT"
rm -rf "$RUN/etcd-data"
# --unsafe-no-fsync: test data only, and the disk is shared with other builds.
launch etcd --name default --data-dir "$RUN/etcd-data" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "default=http://127.0.0.1:$ETCD_PEER_PORT" \
  --unsafe-no-fsync --log-level warn
wait_until 60 "etcd /health" sh -c "curl -sf --max-time 2 http://127.0.0.1:$ETCD_PORT/health | grep -q '\"health\":\"true\"'" ||
  fail "etcd did not become healthy" etcd

log "starting kube-apiserver on https://127.0.0.1:$API_PORT"
# ServiceAccount admission needs the service-account controllers, so it is on only with them;
# the endpoint reconciler is off because a loopback address is not a valid endpoint.
admission=(--disable-admission-plugins ServiceAccount)
[[ -n "$WORKLOADS" ]] && admission=()
launch kube-apiserver \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
  --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
  --client-ca-file "$PKI/ca.crt" \
  --token-auth-file "$PKI/tokens.csv" \
  --authorization-mode RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 \
  "${admission[@]}" \
  --endpoint-reconciler-type none \
  --allow-privileged=true \
  --profiling=false
wait_until 180 "kube-apiserver /readyz" api_ready || fail "kube-apiserver did not become ready" kube-apiserver

log "applying $CRDS"
apply_crds || fail "the CRDs were not established" kube-apiserver

controllers=garbage-collector-controller,namespace-controller
workload_flags=()
if [[ -n "$WORKLOADS" ]]; then
  # Tokens are projected (TokenRequest), so the legacy token Secret controller stays off.
  # The node lifecycle controller lifts the not-ready taint admission puts on a new Node once it is Ready.
  controllers+=,deployment-controller,replicaset-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,node-lifecycle-controller
  workload_flags=(--root-ca-file "$PKI/ca.crt" --service-account-private-key-file "$PKI/sa.key")
fi
log "starting kube-controller-manager ($controllers)"
launch kube-controller-manager \
  --kubeconfig "$ADMIN_KUBECONFIG" \
  --controllers "$controllers" \
  "${workload_flags[@]}" \
  --leader-elect=false \
  --use-service-account-credentials=false \
  --bind-address 127.0.0.1 --secure-port 0 \
  --concurrent-gc-syncs 5 \
  --profiling=false

# Proves the garbage collector runs (not only that the process does): a dependent must follow
# its deleted owner. The probe namespace then proves the namespace controller.
probe="controlplane-probe-$RANDOM"
kubectl_admin create namespace "$probe" >/dev/null
kubectl_admin -n "$probe" create configmap owner >/dev/null
owner_uid="$(kubectl_admin -n "$probe" get configmap owner -o jsonpath='{.metadata.uid}')"
kubectl_admin apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  namespace: $probe
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: "$owner_uid"}
EOF
kubectl_admin -n "$probe" delete configmap owner >/dev/null
kubectl_admin -n "$probe" wait --for=delete configmap/dependent --timeout=120s >/dev/null 2>&1 ||
  fail "the garbage collector did not delete a dependent of a deleted owner" kube-controller-manager
kubectl_admin delete namespace "$probe" --timeout=60s >/dev/null ||
  fail "the namespace controller did not finish deleting a namespace" kube-controller-manager

if [[ -n "$WORKLOADS" ]]; then
  log "starting kube-scheduler"
  launch kube-scheduler --kubeconfig "$ADMIN_KUBECONFIG" --leader-elect=false --bind-address 127.0.0.1 --secure-port 0 --profiling=false
  # The ServiceAccount controller made the namespace's default account, the publisher its CA.
  kubectl_admin create namespace "$probe" >/dev/null
  wait_until 60 "the default ServiceAccount and kube-root-ca.crt of a new namespace" \
    sh -c "'$BIN/kubectl' --kubeconfig '$ADMIN_KUBECONFIG' -n '$probe' get serviceaccount/default configmap/kube-root-ca.crt" ||
    fail "the ServiceAccount controllers did not set up a namespace" kube-controller-manager
  kubectl_admin delete namespace "$probe" --wait=false >/dev/null
  pid_alive kube-scheduler || fail "kube-scheduler exited" kube-scheduler
fi

cp "$ADMIN_KUBECONFIG" "$KUBECONFIG_OUT"
log "control plane ready at https://127.0.0.1:$API_PORT; kubeconfig: $KUBECONFIG_OUT (logs: $LOGS)"
