#!/usr/bin/env bash
# A kube-apiserver on 127.0.0.1 with an etcd of its own and latlab's
# admission webhook, for examples/kube-apiserver-apf.yaml (its variants'
# start command):
#
#   examples/kube/apiserver.sh PORT [kube-apiserver flags...]
#
# starts, each tied to this script (they end with it, even when it is
# killed):
#   etcd            http://127.0.0.1:PORT+1 (peers PORT+2), a fresh store
#                   every start
#   latlab serve    https://127.0.0.1:PORT+3/admission: a validating
#                   admission webhook that admits all, after $DELAY (1s)
#                   for user delay-adder; its CA in $STATE/webhook/ca.crt
#   kube-apiserver  https://127.0.0.1:PORT, its certificate made on the
#                   first start and kept ($STATE/certs/apiserver.crt);
#                   tokens admin-token (group system:masters), alice-token,
#                   bob-token and delay-token (delay-adder), group latlab
#
# With $LATLAB_OTLP_GRPC set (latlab run sets it for a spec with traces:
# true), kube-apiserver sends a span of every request, and of each filter
# in it, to that OTLP/gRPC endpoint (--tracing-config-file).
#
# $STATE is examples/kube/state unless set. kube-apiserver comes from
# $LATLAB_KUBE_BIN, else test/kube/build.sh's cache (build it first:
# bash test/kube/build.sh); latlab from $LATLAB, else PATH, else bin/latlab.
# Logs: $STATE/*.log. Exit 3 when something it needs is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=${1:?usage: apiserver.sh PORT [kube-apiserver flags...]}
shift
[[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65533)) || { echo "apiserver.sh: PORT must be a port number, not $port" >&2; exit 2; }
state=${STATE:-$here/state}
missing() { echo "apiserver.sh: $*" >&2; exit 3; }
if [ -n "${LATLAB_KUBE_BIN:-}" ]; then
  bin=$LATLAB_KUBE_BIN
else
  bin=$(bash "$here/../../test/kube/build.sh" --cached) || missing "kube-apiserver is not built: run test/kube/build.sh, or set LATLAB_KUBE_BIN"
fi
[ -x "$bin/kube-apiserver" ] || missing "no kube-apiserver in $bin"
latlab=${LATLAB:-$(command -v latlab || echo "$here/../../bin/latlab")}
[ -x "$latlab" ] || missing "no latlab binary (make build, or set LATLAB)"
command -v etcd >/dev/null || missing "etcd is not installed (apt-get install etcd-server)"
command -v openssl >/dev/null || missing "openssl is not installed"

mkdir -p "$state"
chmod 700 "$state"
cat >"$state/tokens.csv" <<TOKENS
admin-token,admin,1,"system:masters"
alice-token,alice,2,"latlab"
bob-token,bob,3,"latlab"
delay-token,delay-adder,4,"latlab"
TOKENS
printf '%s' admin-token >"$state/admin.token"
[ -s "$state/sa.key" ] || openssl genrsa -out "$state/sa.key" 2048 2>/dev/null

tracing=()
if [ -n "${LATLAB_OTLP_GRPC:-}" ]; then
  cat >"$state/tracing.yaml" <<TRACING
apiVersion: apiserver.config.k8s.io/v1
kind: TracingConfiguration
endpoint: $LATLAB_OTLP_GRPC
samplingRatePerMillion: 1000000
TRACING
  tracing=(--tracing-config-file "$state/tracing.yaml")
fi

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT
trap 'exit 143' TERM INT
# setpriv: each process gets SIGKILL when this script dies, however it dies.
run() { setpriv --pdeathsig KILL "$@" & pids+=($!); }

etcd_url=http://127.0.0.1:$((port + 1)) peer_url=http://127.0.0.1:$((port + 2))
rm -rf "$state/etcd"
run etcd --name latlab --data-dir "$state/etcd" \
  --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
  --listen-peer-urls "$peer_url" --initial-advertise-peer-urls "$peer_url" \
  --initial-cluster "latlab=$peer_url" >"$state/etcd.log" 2>&1
run "$latlab" serve --name webhook --listen "127.0.0.1:$((port + 3))" --tls-dir "$state/webhook" \
  --admission-delay "${DELAY:-1s}" --admission-user delay-adder >"$state/webhook.log" 2>&1
run "$bin/kube-apiserver" --etcd-servers "$etcd_url" \
  --secure-port "$port" --bind-address 127.0.0.1 --cert-dir "$state/certs" \
  --service-account-issuer https://kubernetes.default.svc \
  --service-account-key-file "$state/sa.key" --service-account-signing-key-file "$state/sa.key" \
  --token-auth-file "$state/tokens.csv" --authorization-mode RBAC \
  --service-cluster-ip-range 10.96.0.0/24 "${tracing[@]}" "$@" >"$state/kube-apiserver.log" 2>&1
# The first of them to end ends all.
wait -n
echo "apiserver.sh: a process ended; the logs are in $state" >&2
exit 1
