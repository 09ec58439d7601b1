#!/usr/bin/env bash
# bench/hop.sh measures what one hop through latlab's synthetic graph costs
# next to a minimal Go server doing the same: two three-service chains,
# root → branch → leaf, run side by side and measured in turns in one run.
#
#   minimal  three processes of bench/minhop (net/http, one shared
#            http.Client, nothing else)
#   graph    examples/graphs/testapi.yaml started by `latlab graph up`:
#            latlab serve nodes with their metrics, Server-Timing and
#            (off unless an exporter is set) tracing
#
# Usage (from anywhere; `make bench-hop` runs it with the defaults):
#
#   bench/hop.sh [--rounds N] [--seconds S] [--requests N] [--warmup S]
#
#   --rounds N     rounds (default 3); minimal and graph take turns in
#                  each, which goes first swapped every round
#   --seconds S    seconds each target is measured per round (default 5):
#                  the / runs in S interleaved slices of 1 s, busywork in
#                  one run of S s
#   --requests N   instead, N requests per target and round, in one run
#   --warmup S     seconds of load on every target at the start of each
#                  round, not counted (default 1)
#
# Every run is `latlab attack --sequential` (one request at a time on one
# connection), so a p50 holds no queueing, only the hops. Per chain:
#   leaf      / on the leaf alone: the load generator and one server
#   entry     / on root: the same plus two hops (root → branch → leaf)
#   busywork  /busywork?ms=10 on root: 3 × 10 ms of CPU spin plus the hops
# per hop = (p50 entry − p50 leaf) / 2: what a service adds by taking a
# request and calling the next, with the generator and the last server
# cancelled out. The four / targets take turns slice by slice (1 s each),
# so that the machine's ups and downs fall on all of them alike; a
# target's p50 in a round is the median of its slices'. Figures are
# medians over rounds (per hop per round, then the median). The targets
# printed at the end: graph per hop <= 1.1 × minimal's, graph busywork
# p50 <= minimal's + 0.2 ms.
#
# Needs bash, curl, coreutils, ss, and jq or python3; Go to build latlab and
# bench/minhop ($GO names the go command, default go). Every server listens
# on 127.0.0.1 and is stopped on exit.
set -euo pipefail

rounds=3
secs=5
requests=0
warmup=1

die() { printf 'hop.sh: %s\n' "$*" >&2; exit 2; }
note() { printf '%s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:?}; shift 2 ;;
    --seconds) secs=${2:?}; shift 2 ;;
    --requests) requests=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
for v in "$rounds" "$secs"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "--rounds and --seconds take a positive integer, not $v"
done
[[ $requests =~ ^(0|[1-9][0-9]*)$ ]] || die "--requests takes a whole number, not $requests"
[[ $warmup =~ ^(0|[1-9][0-9]*)$ ]] || die "--warmup takes a whole number of seconds, not $warmup"

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
command -v "$GO" >/dev/null || die "go is required to build latlab and bench/minhop ($GO not found)"
command -v curl >/dev/null || die "curl is required"
command -v ss >/dev/null || die "ss is required (Debian package iproute2)"
command -v jq >/dev/null || command -v python3 >/dev/null || die "jq or python3 is required"

# ---------------------------------------------------------------- set-up
work=$(mktemp -d "${TMPDIR:-/tmp}/latlab-hop.XXXXXX")
pids=()
cleanup() {
  local p
  for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
  for p in ${pids[@]+"${pids[@]}"}; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

note "building ./cmd/latlab and ./bench/minhop"
"$GO" build -o "$work/latlab" ./cmd/latlab
"$GO" build -o "$work/minhop" ./bench/minhop
latlab=$work/latlab

# free_port: a port below the kernel's ephemeral range (where no outgoing
# connection can hold it) that no socket uses.
eph=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((10000 + RANDOM % (eph > 11000 ? eph - 10000 : 1000)))
    ss -Htan "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
  done
  die "no free port found"
}
# wait_up URL PID NAME: until URL answers 200, or the process has died.
wait_up() {
  for _ in $(seq 150); do
    curl -fs -o /dev/null "$1" && return
    kill -0 "$2" 2>/dev/null || die "$3 exited; its log: $(tail -5 "$work/$3.log" 2>/dev/null)"
    sleep 0.1
  done
  die "$3 does not answer at $1"
}

# The minimal chain, leaf first so that each hop's next is up.
next=""
for name in leaf branch root; do
  port=$(free_port)
  "$work/minhop" -listen "127.0.0.1:$port" ${next:+-next "$next"} >"$work/min-$name.log" 2>&1 &
  pids+=($!)
  wait_up "http://127.0.0.1:$port/" $! "min-$name"
  eval "min_$name=http://127.0.0.1:$port"
  next=http://127.0.0.1:$port
done

# The graph: testapi.yaml's services on free 127.0.0.1 ports.
"$latlab" graph up examples/graphs/testapi.yaml --quiet --ready-file "$work/graph.json" >"$work/graph.log" 2>&1 &
graph_pid=$!
pids+=("$graph_pid")
for _ in $(seq 300); do
  [ -s "$work/graph.json" ] && break
  kill -0 "$graph_pid" 2>/dev/null || die "latlab graph up exited: $(tail -5 "$work/graph.log")"
  sleep 0.1
done
[ -s "$work/graph.json" ] || die "latlab graph up did not start within 30 s"
jfile() {
  if command -v jq >/dev/null; then
    jq -r ".$2 // \"nan\"" "$1" 2>/dev/null || echo nan
  else
    python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print("nan" if v is None else v)' "$1" "$2" 2>/dev/null || echo nan
  fi
}
graph_root=$(jfile "$work/graph.json" nodes.root)
graph_leaf=$(jfile "$work/graph.json" nodes.leaf)
for u in "$graph_root" "$graph_leaf"; do
  [[ $u == http://127.0.0.1:* ]] || die "latlab graph up wrote no node URL on 127.0.0.1 (got $u)"
done

# ---------------------------------------------------------------- measuring
# results.tsv: chain run round slice p50_us.
results=$work/results.tsv
: >"$results"

# attack URL FLAGS...: one sequential run of URL for FLAGS (-d or -n);
# prints its p50 in µs (nan when it failed or a request was not a success).
attack() {
  local url=$1; shift
  "$latlab" attack "$url" --sequential "$@" --format json -o "$work/run.json" >/dev/null 2>"$work/attack.err" || {
    note "attack $url failed: $(tail -3 "$work/attack.err")"; echo nan; return; }
  local ok p50
  ok=$(jfile "$work/run.json" success_ratio)
  p50=$(jfile "$work/run.json" latency_seconds.p50)
  if [ "$ok" != 1 ]; then note "attack $url: success ratio $ok, not 1"; echo nan; return; fi
  awk -v v="$p50" 'BEGIN { if (v == "nan" || v == "") print "nan"; else printf "%.2f", v * 1e6 }'
}
url_of() {
  case "$1/$2" in
    minimal/leaf) echo "$min_leaf/" ;;
    minimal/entry) echo "$min_root/" ;;
    minimal/busywork) echo "$min_root/busywork?ms=10" ;;
    graph/leaf) echo "$graph_leaf/" ;;
    graph/entry) echo "$graph_root/" ;;
    graph/busywork) echo "$graph_root/busywork?ms=10" ;;
  esac
}
median() { sort -g | awk '$1 != "nan" {a[++n] = $1} END { if (!n) print "nan"; else print (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'; }
p50_of() { awk -F'\t' -v c="$1" -v k="$2" -v r="$3" '$1 == c && $2 == k && $3 == r {print $5}' "$results" | median; }
# record CHAIN RUN ROUND SLICE P50
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"; }

# The / runs of a round are cut into slices of 1 s (or one slice of
# --requests), the four targets taking turns slice by slice, so that
# whatever the machine does meanwhile falls on all of them alike; a
# target's p50 in a round is the median of its slices'.
if [ "$requests" -gt 0 ]; then
  slices=1 slice=(-n "$requests") busy=(-n "$requests")
else
  slices=$secs slice=(-d 1s) busy=(-d "${secs}s")
fi
note "$rounds rounds: / on leaf and root in $slices interleaved slices, then busywork, minimal and graph taking turns"
for r in $(seq "$rounds"); do
  if ((r % 2)); then order="minimal graph"; else order="graph minimal"; fi
  if [ "$warmup" -gt 0 ]; then
    for chain in $order; do
      for run in leaf entry busywork; do attack "$(url_of "$chain" "$run")" -d "${warmup}s" >/dev/null; done
    done
  fi
  for s in $(seq "$slices"); do
    targets=""
    for run in leaf entry; do for chain in $order; do targets="$targets $chain/$run"; done; done
    ((s % 2)) || targets=$(echo $targets | tr ' ' '\n' | tac | tr '\n' ' ')
    for t in $targets; do
      record "${t%/*}" "${t#*/}" "$r" "$s" "$(attack "$(url_of "${t%/*}" "${t#*/}")" "${slice[@]}")"
    done
  done
  for chain in $order; do
    record "$chain" busywork "$r" 1 "$(attack "$(url_of "$chain" busywork)" "${busy[@]}")"
  done
  for chain in minimal graph; do
    note "  round $r $chain: p50 leaf $(p50_of "$chain" leaf "$r") µs, root $(p50_of "$chain" entry "$r") µs, busywork $(p50_of "$chain" busywork "$r") µs"
  done
done

# ---------------------------------------------------------------- summary
# p50_of CHAIN RUN ROUND: the median of the round's slices of RUN; per_hop
# CHAIN ROUND: the round's per hop.
per_hop() {
  awk -v e="$(p50_of "$1" entry "$2")" -v l="$(p50_of "$1" leaf "$2")" 'BEGIN {
    if (e == "nan" || l == "nan" || e == "" || l == "") print "nan"; else printf "%.2f\n", (e - l) / 2 }'
}
fig() {
  local chain=$1 what=$2 r
  for r in $(seq "$rounds"); do
    if [ "$what" = per_hop ]; then per_hop "$chain" "$r"; else p50_of "$chain" "$what" "$r"; fi
  done | median
}
fmt() { awk -v v="$1" -v f="$2" 'BEGIN { if (v == "nan" || v == "") print "-"; else printf f, v }'; }

model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "# one hop: latlab's graph vs. a minimal net/http chain — bench/hop.sh --rounds $rounds --seconds $secs$([ "$requests" -gt 0 ] && echo " --requests $requests")"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine:  $(nproc) CPUs, ${model:-unknown CPU}, Linux $(uname -r), $("$GO" version | awk '{print $3}')"
echo "load:     latlab attack --sequential (one request in flight), warm-up ${warmup} s per target and round; / in $slices slices per target and round; medians over $rounds rounds"
echo
printf '  %-28s %10s %10s %8s\n' "" minimal graph graph÷min
for what in leaf entry per_hop busywork; do
  m=$(fig minimal "$what") g=$(fig graph "$what")
  case "$what" in
    leaf) label="leaf /, p50 µs" ;;
    entry) label="root / (3 services), p50 µs" ;;
    per_hop) label="per hop, µs" ;;
    busywork) label="busywork 3×10 ms, p50 ms" ;;
  esac
  if [ "$what" = busywork ]; then
    ms=$(awk -v v="$m" 'BEGIN { print (v == "nan") ? "nan" : v / 1000 }') gs=$(awk -v v="$g" 'BEGIN { print (v == "nan") ? "nan" : v / 1000 }')
    printf '  %-28s %10s %10s %8s\n' "$label" "$(fmt "$ms" %.3f)" "$(fmt "$gs" %.3f)" \
      "$(awk -v a="$gs" -v b="$ms" 'BEGIN { if (a == "nan" || b == "nan") print "-"; else printf "%+.3f ms", a - b }')"
    bw_m=$ms bw_g=$gs
  else
    printf '  %-28s %10s %10s %8s\n' "$label" "$(fmt "$m" %.1f)" "$(fmt "$g" %.1f)" \
      "$(awk -v a="$g" -v b="$m" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0) print "-"; else printf "%.2f", a / b }')"
    [ "$what" = per_hop ] && { hop_m=$m hop_g=$g; }
  fi
done
echo
# verdict A LIMIT: met when A <= LIMIT.
verdict() { awk -v a="$1" -v l="$2" 'BEGIN { if (a + 0 <= l + 0) print "met"; else print "NOT met" }'; }
if [ "$hop_m" != nan ] && [ "$hop_g" != nan ]; then
  lim=$(awk -v m="$hop_m" 'BEGIN { printf "%.2f", 1.1 * m }')
  echo "target: graph per hop <= 1.1 × minimal's: $(fmt "$hop_g" %.1f) vs $(fmt "$lim" %.1f) µs: $(verdict "$hop_g" "$lim")"
fi
if [ "$bw_m" != nan ] && [ "$bw_g" != nan ]; then
  lim=$(awk -v m="$bw_m" 'BEGIN { printf "%.4f", m + 0.2 }')
  echo "target: graph busywork p50 <= minimal's + 0.2 ms: $(fmt "$bw_g" %.3f) vs $(fmt "$lim" %.3f) ms: $(verdict "$bw_g" "$lim")"
fi
