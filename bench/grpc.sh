#!/usr/bin/env bash
# bench/grpc.sh measures `latlab attack` over gRPC beside ghz, both calling
# grpc.health.v1.Health/Check on bench/grpcserver (grpc-go, reflection on,
# answering at once) and latlab.graph.v1.Node/Run on latlab's own gRPC
# node (a graph service with an empty script), and prints each tool's
# median per scenario.
# bench/peers.sh runs it as its grpc scenario.
#
#   bench/grpc.sh [--rounds N] [--seconds S] [--only LIST] [--rate R]
#                 [--conns N] [--no-pin]
#
#   --rounds N   rounds per scenario (default 3), tools alternating, the
#                order rotated every round
#   --seconds S  length of each closed50 and open run (default 5)
#   --only LIST  scenarios, comma- or space-separated (default
#                closed50,open,stall,node50,nodeopen)
#   --rate R     the open and stall scenarios' rate, calls/s (default 5000)
#   --conns N    HTTP/2 connections of closed50, both tools (default 50)
#   --no-pin     do not pin the server and the tools to CPUs
#
# Scenarios:
#   closed50  50 calls in flight (50 workers) on N connections, S seconds:
#             calls/s, CPU µs per call (user+sys of the tool / calls), peak
#             RSS
#   open      R calls/s for S seconds, on one connection (both tools'
#             default): achieved rate, latency p50 and p99
#   stall     R calls/s for 10 s against a server that holds every call
#             arriving in the first second of each 5 s (-stall 1s -every 5s):
#             latency p99. latlab measures from each call's intended send
#             time, so a stall's backlog is in its tail; ghz measures from
#             the actual send: with its default workers (-c 50) calls queue
#             unsent behind the stalled ones and their wait is lost; with
#             --async it sends on schedule and sees the stall too.
#   node50    closed50 against latlab's gRPC node (latlab serve, one
#             service with protocol: grpc and no work), calling Run
#   nodeopen  open against that node
#
# Needs bash, GNU time, Go, and ghz (go install github.com/bojand/ghz/cmd/ghz)
# on PATH or in ~/.cache/latlab-peers/bin; without ghz latlab runs alone.
set -euo pipefail

rounds=3 secs=5 rate=5000 conns=50 pin=1 scenarios="closed50 open stall node50 nodeopen"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --only) scenarios=${2//,/ }; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --conns) conns=$2; shift 2 ;;
    --no-pin) pin=0; shift ;;
    -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "grpc.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="${PEERS_BIN:-$HOME/.cache/latlab-peers/bin}:$PATH"

work=$(mktemp -d "${TMPDIR:-/tmp}/latlab-grpc.XXXXXX")
server_pid="" server_kind=""
stop_server() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=""
}
trap 'stop_server; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

echo "building ./cmd/latlab and ./bench/grpcserver" >&2
"${GO:-go}" build -o "$work/latlab" ./cmd/latlab
"${GO:-go}" build -o "$work/grpcserver" ./bench/grpcserver

ncpu=$(nproc)
srv_prefix=() load_prefix=()
if [ "$pin" = 1 ] && [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null; then
  srv_prefix=(taskset -c $((ncpu - 1)))
  load_prefix=(taskset -c "0-$((ncpu - 2))")
else
  pin=0
fi
port=$((20000 + RANDOM % 10000))
addr=127.0.0.1:$port
health=grpc.health.v1.Health/Check
run_method=latlab.graph.v1.Node/Run
printf 'services:\n  - {name: node, protocol: grpc}\n' >"$work/node.yaml"

# start_server KIND ARGS...: a fresh server of KIND (grpcserver or node),
# so every run meets the same stalls.
start_server() {
  stop_server
  server_kind=$1; shift
  if [ "$server_kind" = node ]; then
    ${srv_prefix[@]+"${srv_prefix[@]}"} "$work/latlab" serve --topology "$work/node.yaml" --service node --listen "$addr" 2>"$work/server.log" &
  else
    ${srv_prefix[@]+"${srv_prefix[@]}"} "$work/grpcserver" -listen "$addr" "$@" 2>"$work/server.log" &
  fi
  server_pid=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return
    sleep 0.05
  done
  echo "grpc.sh: the server does not listen on $addr" >&2
  exit 1
}

tools=latlab
command -v ghz >/dev/null && tools="latlab ghz"
results=$work/results.tsv
: >"$results"

# run LIMIT CMD...: CMD on the load CPUs; output in $work/out, "wall user
# sys maxrss_kB" in $work/rusage.
run() {
  local limit=$1; shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/rusage" \
    timeout --foreground --signal=INT --kill-after=10 "$limit" ${load_prefix[@]+"${load_prefix[@]}"} "$@" >"$work/out" 2>&1 || true
}
# figures TOOL: "calls ok_calls rate p50_us p99_us" of the last run.
figures() {
  python3 - "$1" "$work/out" <<'PY' 2>/dev/null || echo nan nan nan nan nan
import json, sys
tool, text = sys.argv[1], open(sys.argv[2]).read()
d = json.loads(text[text.index("{"):])
if tool == "latlab":
    n, ok, rps = d["requests"], d["status_codes"].get("OK", 0), d["throughput"]
    p50, p99 = d["latency_seconds"]["p50"] * 1e6, d["latency_seconds"]["p99"] * 1e6
else:
    n, ok, rps = d["count"], d["statusCodeDistribution"].get("OK", 0), d["rps"]
    q = {x["percentage"]: x["latency"] / 1e3 for x in d["latencyDistribution"] or []}
    p50, p99 = q.get(50, float("nan")), q.get(99, float("nan"))
print(n, ok, "%.1f" % rps, "%.1f" % p50, "%.1f" % p99)
PY
}
record() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$results"; }
median() {
  awk -F'\t' -v s="$1" -v t="$2" -v k="$3" '$1 == s && $2 == t && $3 == k && $4 != "nan" {print $4}' "$results" | sort -g |
    awk '{a[NR] = $1} END { if (NR == 0) print "-"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
rotated() {
  local r=$1; shift
  local -a ts=("$@")
  local i
  for ((i = 0; i < ${#ts[@]}; i++)); do printf '%s ' "${ts[(r + i) % ${#ts[@]}]}"; done
}

# attack SCENARIO TOOL: one run.
attack() {
  local lim=$((secs + 40)) method=$health sc=$1
  case "$sc" in
    node50) sc=closed50 method=$run_method ;;
    nodeopen) sc=open method=$run_method ;;
  esac
  case "$sc/$2" in
    closed50/latlab) run $lim "$work/latlab" attack "grpc://$addr/$method" -c 50 --connections "$conns" -d "${secs}s" --format json ;;
    closed50/ghz) run $lim ghz --insecure --call "$method" -c 50 --connections "$conns" -z "${secs}s" -O json "$addr" ;;
    open/latlab) run $lim "$work/latlab" attack "grpc://$addr/$method" -r "$rate" -d "${secs}s" --format json ;;
    open/ghz) run $lim ghz --insecure --call "$method" -c 50 -r "$rate" -z "${secs}s" -O json "$addr" ;;
    stall/latlab) run 60 "$work/latlab" attack "grpc://$addr/$method" -r "$rate" -d 10s --format json ;;
    stall/ghz) run 60 ghz --insecure --call "$method" -c 50 -r "$rate" -z 10s -O json "$addr" ;;
    stall/ghz-async) run 60 ghz --insecure --async --call "$method" -c 50 -r "$rate" -z 10s -O json "$addr" ;;
  esac
}

for sc in $scenarios; do
  ts=$tools
  [ "$sc" = stall ] && [ "$tools" != latlab ] && ts="$tools ghz-async"
  for ((r = 0; r < rounds; r++)); do
    for t in $(rotated "$r" $ts); do
      kind=grpcserver
      case "$sc" in node*) kind=node ;; esac
      if [ "$sc" = stall ]; then
        start_server grpcserver -stall 1s -every 5s
      elif [ -z "$server_pid" ] || [ "$server_kind" != "$kind" ]; then
        start_server "$kind"
      fi
      echo "$sc round $((r + 1)): $t" >&2
      attack "$sc" "$t"
      read -r n ok rps p50 p99 < <(figures "${t%-async}")
      read -r wall user sys rss < "$work/rusage"
      cpu=$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { if (n + 0 > 0) printf "%.2f", (u + s) * 1e6 / n; else print "nan" }')
      for kv in "calls $n" "ok $ok" "rate $rps" "p50 $p50" "p99 $p99" "cpu $cpu" "rss $(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')"; do
        record "$sc" "$t" $kv
      done
    done
    [ "$sc" = stall ] && stop_server
  done
done
stop_server

echo "# latlab attack vs. ghz over gRPC — bench/grpc.sh --rounds $rounds --seconds $secs --rate $rate --only ${scenarios// /,}"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $ncpu CPUs, $(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo), pinning $([ "$pin" = 1 ] && echo "server on CPU $((ncpu - 1)), tools on 0-$((ncpu - 2))" || echo none)"
echo "targets: bench/grpcserver (grpc-go $(go list -m -f '{{.Version}}' google.golang.org/grpc)), $health; node*: latlab serve, a graph service with protocol: grpc and no work, $run_method; at $addr"
printf 'tools:   latlab %s' "$("$work/latlab" version | head -1 | sed 's/^latlab //')"
command -v ghz >/dev/null && printf '; ghz %s' "$("${GO:-go}" version -m "$(command -v ghz)" | awk '$1 == "mod" {print $3}')"
echo
echo "Every figure is the median over rounds. Latency: latlab's from each call's intended send time; ghz's from its actual send."
for sc in $scenarios; do
  echo
  case "$sc" in
    closed50 | node50) echo "$sc: 50 calls in flight, $conns connections, ${secs}s, $([ "$sc" = node50 ] && echo "latlab's node" || echo grpcserver)"
      printf '  %-10s %12s %14s %8s %10s\n' tool calls/s "CPU µs/call" "RSS MB" "OK/calls" ;;
    open | nodeopen) echo "$sc: $rate calls/s, ${secs}s, $([ "$sc" = nodeopen ] && echo "latlab's node" || echo grpcserver)"
      printf '  %-10s %12s %12s %12s %10s\n' tool "achieved/s" "p50 µs" "p99 µs" "OK/calls" ;;
    stall) echo "stall: $rate calls/s, 10 s, the server holds every call arriving in the first 1 s of each 5 s"
      printf '  %-10s %12s %12s %12s %10s\n' tool "achieved/s" "p50 µs" "p99 µs" "OK/calls" ;;
  esac
  ts=$tools
  [ "$sc" = stall ] && [ "$tools" != latlab ] && ts="$tools ghz-async"
  for t in $ts; do
    okc="$(median "$sc" "$t" ok)/$(median "$sc" "$t" calls)"
    case "$sc" in
      closed50 | node50) printf '  %-10s %12s %14s %8s %10s\n' "$t" "$(median "$sc" "$t" rate)" "$(median "$sc" "$t" cpu)" "$(median "$sc" "$t" rss)" "$okc" ;;
      *) printf '  %-10s %12s %12s %12s %10s\n' "$t" "$(median "$sc" "$t" rate)" "$(median "$sc" "$t" p50)" "$(median "$sc" "$t" p99)" "$okc" ;;
    esac
  done
done
