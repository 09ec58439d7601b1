#!/usr/bin/env bash
# What the study's cluster had, applied to the kube-apiserver apiserver.sh
# started on PORT, as admin (examples/kube-apiserver-apf.yaml's configure):
#
#   examples/kube/configure.sh PORT [restricted]
#
#   - RBAC: group latlab (alice, bob, delay-adder) may do anything with
#     ConfigMaps;
#   - with restricted, a priority level with few seats (nominal shares 10
#     beside the defaults' 245: 24 of the server's 600, none lent or
#     borrowed, queuing) and a flow schema sending group latlab's
#     ConfigMap requests to it, one flow per user;
#   - the ValidatingWebhookConfiguration calling latlab's webhook
#     (https://127.0.0.1:PORT+3/admission) on every ConfigMap create,
#     update and delete.
#
# It returns once the server holds delay-adder's dry-run create for the
# webhook's delay ($DELAY, as apiserver.sh was given it): the configuration reaches the admission chain and the
# authorizer through watches, a little after it is accepted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=${1:?usage: configure.sh PORT [restricted]}
level=${2:-}
state=${STATE:-$here/state}
api=https://127.0.0.1:$port

# call USER METHOD PATH [BODY]: prints the status code; the body goes to
# $state/last.json.
call() {
  local token
  case $1 in admin) token=admin-token ;; delay-adder) token=delay-token ;; *) token=$1-token ;; esac
  curl -sS --cacert "$state/certs/apiserver.crt" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -X "$2" ${4:+--data "$4"} \
    -o "$state/last.json" -w '%{http_code}' "$api$3"
}
create() {
  local code
  code=$(call admin POST "$1" "$2")
  [ "$code" = 201 ] || { echo "configure.sh: POST $1: $code $(cat "$state/last.json")" >&2; exit 1; }
}

create /apis/rbac.authorization.k8s.io/v1/clusterroles \
  '{"metadata":{"name":"latlab-configmaps"},"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["*"]}]}'
create /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
  '{"metadata":{"name":"latlab-configmaps"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"latlab-configmaps"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"latlab"}]}'

if [ "$level" = restricted ]; then
  create /apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations \
    '{"metadata":{"name":"latlab-restricted"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":10,"lendablePercent":0,"borrowingLimitPercent":0,"limitResponse":{"type":"Queue","queuing":{"queues":16,"handSize":4,"queueLengthLimit":200}}}}}'
  create /apis/flowcontrol.apiserver.k8s.io/v1/flowschemas \
    '{"metadata":{"name":"latlab-users"},"spec":{"priorityLevelConfiguration":{"name":"latlab-restricted"},"matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"Group","group":{"name":"latlab"}}],"resourceRules":[{"verbs":["*"],"apiGroups":[""],"resources":["configmaps"],"namespaces":["*"]}]}]}}'
elif [ -n "$level" ]; then
  echo "configure.sh: unknown level $level (restricted, or none)" >&2
  exit 2
fi

ca=$(base64 -w0 <"$state/webhook/ca.crt")
create /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations \
  '{"metadata":{"name":"latlab-delay"},"webhooks":[{"name":"delay.latlab.test","clientConfig":{"url":"https://127.0.0.1:'$((port + 3))'/admission","caBundle":"'"$ca"'"},"rules":[{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],"sideEffects":"None","admissionReviewVersions":["v1"],"failurePolicy":"Fail","timeoutSeconds":10}]}'

delay=${DELAY:-1s} want=0
if [[ $delay =~ ^([0-9]+)ms$ ]]; then want=${BASH_REMATCH[1]}; elif [[ $delay =~ ^([0-9]+)s$ ]]; then want=$((BASH_REMATCH[1] * 1000)); fi
want=$((want * 9 / 10))
for _ in $(seq 60); do
  start=$(date +%s%N)
  code=$(call delay-adder POST '/api/v1/namespaces/default/configmaps?dryRun=All' '{"metadata":{"name":"latlab-probe"}}')
  took=$((($(date +%s%N) - start) / 1000000))
  if [ "$code" = 201 ] && [ "$took" -ge "$want" ]; then
    echo "configure.sh: ready; delay-adder's dry-run create took $took ms" >&2
    exit 0
  fi
  sleep 0.5
done
echo "configure.sh: the webhook's delay does not show a minute on (last: $code in $took ms: $(cat "$state/last.json"))" >&2
exit 1
