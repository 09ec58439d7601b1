#!/usr/bin/env bash
# test/kube/up.sh starts a test Kubernetes cluster on this machine, in
# the background, and prints "ready" once it takes pods:
#
#   test/kube/up.sh DIR [--nodes N] [--image NAME=PATH]... [--owner PID]
#                       [-- PODRUNNER_FLAGS...]
#
#   DIR             the cluster's state: etcd's data, certificates, logs
#                   (DIR/logs), pids (DIR/pids) and DIR/kubeconfig, the
#                   admin's (group system:masters)
#   --nodes N       nodes the pod runner registers (default 2)
#   --image N=P     pods whose image is N run the local binary P
#                   (repeatable; any other image fails with ErrImagePull)
#   --owner PID     tear the cluster down when process PID ends (a test's
#                   safety net when it dies before its cleanup)
#   -- FLAGS        more flags for the pod runner, such as
#                   --restart-backoff 1s (see test/kube/podrunner/doc.go)
#
# The cluster: etcd, kube-apiserver and kube-controller-manager (built or
# reused by build.sh; $LATLAB_KUBE_BIN overrides), and the pod runner
# (test/kube/podrunner, built with go into DIR unless $PODRUNNER names
# one), which registers the nodes, schedules, runs pods as processes in
# network namespaces and proxies Services. Everything listens on
# 127.0.0.1 or on addresses of 198.18.0.0/15: the runner holds a slot S
# of the machine, 0 to 255, and the cluster takes 198.18.S.0/24 for pods,
# 198.19.S.0/24 for Services and the ports 12000+10*S to 12003+10*S for
# kube-apiserver, etcd (client and peer) and kube-controller-manager, so
# that clusters in different DIRs run side by side. Certificates (openssl,
# EC P-256) are made afresh on each start: a CA, the API server's serving
# certificate (127.0.0.1 and the kubernetes Service's 198.19.S.1), client
# certificates of the admin, the controller manager, the pod runner and
# the API server's kubelet client, the runner's kubelet serving
# certificate (127.0.0.1) and the service-account key pair.
#
# test/kube/down.sh DIR stops it all. Started again in the same DIR, the
# cluster keeps etcd's data (its objects) and the runner removes what its
# predecessor left. With the Kubernetes binaries cached, up.sh takes about
# 11 s on a 2-CPU machine, 3 to 4 of them building the runner from Go's
# build cache; building the Kubernetes binaries first takes 5 to 15
# minutes.
#
# Exit status: 0 ready; 2 on a usage error; 3 when something needed is
# missing (root, ip, etcd, openssl, kubectl, go, or the Kubernetes binaries
# and their build); 1 when the cluster did not come up (the ends of its
# logs are printed, and what started is stopped).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

die() { printf 'up.sh: %s\n' "$1" >&2; exit "${2:-1}"; }
usage() { die "usage: up.sh DIR [--nodes N] [--image NAME=PATH]... [--owner PID] [-- PODRUNNER_FLAGS...]" 2; }

[ $# -ge 1 ] || usage
case "$1" in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; -*) usage ;; esac
dir=$1
shift
nodes=2 owner="" images=() extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
    --image) images+=(--image "${2:?--image needs NAME=PATH}"); shift 2 ;;
    --owner) owner=${2:?--owner needs a pid}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) usage ;;
  esac
done
[[ $nodes =~ ^[1-9][0-9]?$ ]] || die "--nodes takes 1 to 99, not $nodes" 2
[ -z "$owner" ] || [[ $owner =~ ^[1-9][0-9]*$ ]] || die "--owner takes a pid, not $owner" 2

[ "$(id -u)" = 0 ] || die "must run as root: the pod runner makes network namespaces, veths, addresses and mounts" 3
for tool in ip openssl kubectl setsid ss; do
  command -v "$tool" >/dev/null || die "$tool is required and not installed" 3
done
command -v etcd >/dev/null || die "etcd is not installed: apt-get install etcd-server" 3

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pids=$dir/pids logs=$dir/logs pki=$dir/pki
mkdir -p "$pids" "$logs" "$pki"
chmod 700 "$dir"

# alive PID: the process exists and is not a zombie.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
for f in "$pids"/*; do
  [ -e "$f" ] || continue
  if alive "$(cat "$f")"; then
    die "a cluster already runs in $dir ($(basename "$f") is pid $(cat "$f")): test/kube/down.sh $dir first"
  fi
  rm -f "$f"
done

if [ -n "${LATLAB_KUBE_BIN:-}" ]; then
  bin=$LATLAB_KUBE_BIN
else
  set +e
  bin=$(bash "$here/build.sh")
  rc=$?
  set -e
  [ $rc = 0 ] || die "the Kubernetes binaries are not built and build.sh failed (exit $rc)" 3
fi
for c in kube-apiserver kube-controller-manager; do
  [ -x "$bin/$c" ] || die "no $c in $bin" 3
done

runner=${PODRUNNER:-}
if [ -z "$runner" ]; then
  command -v go >/dev/null || die "go is required to build the pod runner (or set PODRUNNER)" 3
  runner=$dir/podrunner
  (cd "$root" && go build -o "$runner" ./test/kube/podrunner) || die "building the pod runner failed" 3
fi
[ -x "$runner" ] || die "no pod runner at $runner" 3
echo "$runner" >"$dir/runner" # for down.sh's cleanup

start=$(date +%s%3N)
# start NAME CMD...: runs CMD in a session of its own, detached from this
# script's output (a caller reading it would wait for them otherwise).
start() {
  local name=$1
  shift
  setsid "$@" >"$logs/$name.log" 2>&1 </dev/null &
  echo $! >"$pids/$name"
}
started=0
# fail MSG: prints the logs' ends, stops what started and exits 1.
fail() {
  printf 'up.sh: %s\n' "$1" >&2
  local f
  for f in "$logs"/*.log; do
    [ -s "$f" ] || continue
    printf '\n--- %s ends:\n' "$f" >&2
    tail -n 25 "$f" >&2
  done
  [ $started = 0 ] || bash "$here/down.sh" "$dir" >&2 || true
  exit 1
}
trap 'fail "interrupted"' INT TERM

# --- certificates
ossl() { openssl "$@" 2>>"$logs/openssl.log"; }
key() { ossl ecparam -name prime256v1 -genkey -noout -out "$pki/$1.key"; }
printf '[req]\ndistinguished_name = dn\nprompt = no\nx509_extensions = v3\n[dn]\nCN = latlab test cluster CA\n[v3]\nbasicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign, digitalSignature\nsubjectKeyIdentifier = hash\n' >"$pki/ca.cnf"
printf '[req]\ndistinguished_name = dn\n[dn]\n' >"$pki/req.cnf"
key ca
ossl req -x509 -new -config "$pki/ca.cnf" -key "$pki/ca.key" -days 3650 -out "$pki/ca.crt" || fail "making the CA"
# cert NAME SUBJECT USAGE [SANS]: a certificate of the CA.
cert() {
  local name=$1 subj=$2 usage=$3 sans=${4:-}
  key "$name"
  ossl req -new -config "$pki/req.cnf" -key "$pki/$name.key" -subj "$subj" -out "$pki/$name.csr" || fail "making $name's request"
  {
    echo "basicConstraints = critical, CA:FALSE"
    echo "keyUsage = critical, digitalSignature, keyEncipherment"
    echo "extendedKeyUsage = $usage"
    [ -z "$sans" ] || echo "subjectAltName = $sans"
  } >"$pki/$name.ext"
  ossl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -days 3650 -extfile "$pki/$name.ext" -out "$pki/$name.crt" || fail "signing $name's certificate"
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}
cert admin "/O=system:masters/CN=admin" clientAuth
cert controller-manager "/CN=system:kube-controller-manager" clientAuth
cert podrunner "/O=system:masters/CN=latlab-podrunner" clientAuth
cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
cert kubelet "/CN=latlab-podrunner-kubelet" serverAuth "IP:127.0.0.1"
ossl genrsa -out "$pki/sa.key" 2048 || fail "making the service-account key"
ossl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" || fail "making the service-account key"

# --- the pod runner first: it claims the slot the rest is numbered by
[ ! -e "$dir/slot" ] || mv -f "$dir/slot" "$dir/slot.last"
start podrunner "$runner" --dir "$dir" --kubeconfig "$dir/podrunner.kubeconfig" \
  --cert "$pki/kubelet.crt" --key "$pki/kubelet.key" --client-ca "$pki/ca.crt" \
  --nodes "$nodes" "${images[@]}" "${extra[@]}"
started=1
for _ in $(seq 300); do
  [ ! -s "$dir/slot" ] || break
  alive "$(cat "$pids/podrunner")" || fail "the pod runner ended"
  sleep 0.1
done
[ -s "$dir/slot" ] || fail "the pod runner claimed no slot in 30 s"
slot=$(cat "$dir/slot")
base=$((12000 + 10 * slot))
api=$base etcd_port=$((base + 1)) peer=$((base + 2)) kcm=$((base + 3))
for p in $api $etcd_port $peer $kcm; do
  [ -z "$(ss -Hltn "sport = :$p")" ] || fail "port $p of slot $slot is taken by another program"
done
svc_ip=198.19.$slot.1

cert apiserver "/CN=kube-apiserver" serverAuth \
  "IP:127.0.0.1,IP:$svc_ip,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"

# kubeconfig FILE USER: a kubeconfig of the API server with USER's certificate.
kubeconfig() {
  local tmp=$1.tmp
  cat >"$tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: latlab
  cluster:
    server: https://127.0.0.1:$api
    certificate-authority-data: $(base64 -w0 "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 "$pki/$2.crt")
    client-key-data: $(base64 -w0 "$pki/$2.key")
contexts:
- name: latlab
  context: {cluster: latlab, user: $2}
current-context: latlab
EOF
  chmod 600 "$tmp"
  mv -f "$tmp" "$1"
}
kubeconfig "$dir/kubeconfig" admin
kubeconfig "$dir/controller-manager.kubeconfig" controller-manager

# --- etcd, kube-apiserver, kube-controller-manager
etcd_url=http://127.0.0.1:$etcd_port peer_url=http://127.0.0.1:$peer
start etcd etcd --name latlab --data-dir "$dir/etcd" \
  --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
  --listen-peer-urls "$peer_url" --initial-advertise-peer-urls "$peer_url" \
  --initial-cluster "latlab=$peer_url"
# The kubernetes Service's endpoint is advertised as the pods' gateway,
# 198.18.S.1: an endpoint may not be a loopback address, and the runner's
# proxy sends that Service to 127.0.0.1:$api whatever its endpoint says.
start kube-apiserver "$bin/kube-apiserver" \
  --etcd-servers "$etcd_url" \
  --bind-address 127.0.0.1 --secure-port "$api" --advertise-address "198.18.$slot.1" \
  --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --client-ca-file "$pki/ca.crt" \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --authorization-mode Node,RBAC --allow-privileged=true \
  --service-cluster-ip-range "198.19.$slot.0/24" \
  --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" \
  --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority "$pki/ca.crt" \
  --kubelet-preferred-address-types InternalIP
if [ -n "$owner" ]; then
  start watchdog bash "$here/down.sh" --after "$owner" "$dir"
fi

controllers=(
  serviceaccount-token-controller serviceaccount-controller root-ca-certificate-publisher-controller
  namespace-controller garbage-collector-controller pod-garbage-collector-controller
  deployment-controller replicaset-controller replicationcontroller-controller statefulset-controller
  daemonset-controller job-controller cronjob-controller ttl-after-finished-controller
  endpoints-controller endpointslice-controller endpointslice-mirroring-controller
  resourcequota-controller disruption-controller clusterrole-aggregation-controller
  service-cidr-controller
)
# No node-lifecycle-controller: the runner's nodes are Ready for as long
# as it runs, and a test on a loaded machine should not see them evicted.
start_kcm() {
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$dir/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$dir/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$dir/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$kcm" --leader-elect=false \
    --use-service-account-credentials \
    --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
    --controllers "$(IFS=,; echo "${controllers[*]}")"
  # The runner's kubeconfig last: it waits for it, then for the API.
  kubeconfig "$dir/podrunner.kubeconfig" podrunner
}

# --- wait until the API is ready (its RBAC roles made: the controller
# manager starts then, as it cannot before), the nodes are Ready and the
# default ServiceAccount exists (the controller manager is up)
k() { kubectl --kubeconfig "$dir/kubeconfig" --request-timeout 10s "$@" 2>/dev/null; }
timeout=${LATLAB_KUBE_UP_TIMEOUT:-300}
deadline=$(($(date +%s) + timeout))
step=api
while :; do
  for f in "$pids"/*; do
    alive "$(cat "$f")" || fail "$(basename "$f") ended"
  done
  case $step in
    api) [ "$(k get --raw /readyz || true)" != ok ] || { start_kcm; step=nodes; } ;;
    nodes)
      ready=$(k get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$' || true)
      [ "$ready" -lt "$nodes" ] || step=sa ;;
    sa) k get serviceaccount default --namespace default -o name >/dev/null && break ;;
  esac
  [ "$(date +%s)" -lt "$deadline" ] || fail "the cluster was not ready in $timeout s (waiting for: $step)"
  sleep 0.2
done
trap - INT TERM
ms=$(($(date +%s%3N) - start))
printf 'up.sh: cluster %s ready in %d.%03d s: slot %s, API https://127.0.0.1:%s, kubeconfig %s/kubeconfig\n' \
  "$dir" $((ms / 1000)) $((ms % 1000)) "$slot" "$api" "$dir" >&2
echo ready
