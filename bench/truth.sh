#!/usr/bin/env bash
# bench/truth.sh checks that a load generator's latency is the target's: it
# starts a server whose service time it knows (bench/truthserver times each
# request from its arrival in the server's socket to its answer's write),
# runs latlab and its open-loop peers against it, and prints each one's
# latency p50 and p99 beside the server's own, plus the floor the network
# and the HTTP parsing add between the two.
#
# Usage (from anywhere):
#
#   bench/truth.sh [--rate R] [--seconds S] [--warmup W] [--rounds N]
#                  [--servers LIST] [--tools LIST] [--conns N] [--stress]
#
#   --rate R        open-loop rate of every run, req/s (default 4000)
#   --seconds S     length of each measured run (default 5)
#   --warmup W      warm-up of the latlab runs that have one (default 2s)
#   --rounds N      rounds; in each, every tool runs once, in an order
#                   rotated every round (default 3)
#   --servers LIST  slow (sleeps a uniform 1-3 ms) and fast (answers at
#                   once), comma-separated (default slow,fast)
#   --tools LIST    of latlab, latlab-warm, shards, shards-warm, latlab-auto,
#                   latlab-rt, shards-rt, wrk2, oha (default all but the
#                   -rt ones that are installed, latlab-auto where this user
#                   may run real-time threads)
#   --conns N       connections of wrk2 and oha (default 100)
#   --stress        run stress-ng --cpu 2 beside everything, as a busy
#                   machine would
#   --keep DIR      keep every latlab run's results database in DIR, as
#                   SERVER-TOOL-ROUND.db (latlab attack -o), with each
#                   request's intended, sent and done times: what to read
#                   when one run stands out
#
# The tools: latlab (latlab attack -r R -d S, nothing else), latlab-warm
# (with --warmup W), shards and shards-warm (the same from --shards 4
# --local), latlab-auto (latlab with --realtime=auto: its event loop a
# SCHED_FIFO thread while light), latlab-rt and shards-rt (with
# --realtime: event loops as SCHED_FIFO threads whatever they use), wrk2 (-t CPUs -c N -R R; $WRK2 or
# wrk2 on PATH), oha (-c N -q R --latency-correction). Each figure is the
# median over the rounds.
#
# The truth is the server's wire time: from the kernel's stamp of a
# request's arrival in the server's socket to the start of its answer's
# write. It holds the handler and every wait of the server around it, for
# the Go scheduler or, on a busy machine, for a CPU: a wait the target
# really makes its clients see. (The handler's own time is printed beside
# it.) The floor is measured first: latlab --sequential for 2 s against
# the fast server, its latency p50 less the server's wire p50, what a
# request and its answer take outside the server with no queue. Truth +
# floor is then what an honest generator reads: the server's wire p50
# (p99) over the run, plus the floor.
# `ratio` is the tool's figure over truth + floor; `hdl` the server's
# handler time over the same runs; `conns` is what latlab
# opened during the measured load (after a warm-up it should open none).
# Needs bash, Go, python3, curl; stress-ng for --stress.
set -euo pipefail

rate=4000
secs=5
warmup=2s
rounds=3
servers="slow fast"
tools=""
conns=100
stress=0
keep=""

die() { printf 'truth.sh: %s\n' "$*" >&2; exit 2; }
note() { printf '%s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate=${2:?}; shift 2 ;;
    --seconds) secs=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --servers) servers=${2//,/ }; shift 2 ;;
    --tools) tools=${2//,/ }; shift 2 ;;
    --conns) conns=${2:?}; shift 2 ;;
    --stress) stress=1; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
for v in "$rate" "$secs" "$rounds" "$conns"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "want a whole positive number, not $v"
done
for s in $servers; do
  case "$s" in slow | fast) ;; *) die "--servers: slow or fast, not $s" ;; esac
done

if [ -n "$keep" ]; then
  mkdir -p "$keep" && keep=$(cd "$keep" && pwd) || die "--keep: cannot make $keep"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

export PATH="$PATH:$HOME/.cargo/bin:${PEERS_BIN:-$HOME/.cache/latlab-peers/bin}"
wrk2=${WRK2:-$(command -v wrk2 || true)}
[ -n "$wrk2" ] || [ ! -x "$root/../shared/peers/wrk2/wrk2" ] || wrk2="$root/../shared/peers/wrk2/wrk2"
if [ -z "$tools" ]; then
  tools="latlab latlab-warm shards shards-warm"
  rt=1
  [ -n "$wrk2" ] && tools="$tools wrk2"
  command -v oha >/dev/null && tools="$tools oha"
fi
for t in $tools; do
  case "$t" in
    latlab | latlab-warm | shards | shards-warm | latlab-auto | latlab-rt | shards-rt) ;;
    wrk2) [ -n "$wrk2" ] || die "wrk2 is not installed (set WRK2)" ;;
    oha) command -v oha >/dev/null || die "oha is not installed" ;;
    *) die "--tools: unknown tool $t" ;;
  esac
done

GO=${GO:-go}
note "building latlab and truthserver"
(cd "$root" && $GO build -o "$work/latlab" ./cmd/latlab && $GO build -o "$work/truthserver" ./bench/truthserver)
latlab=$work/latlab

if [ "$stress" = 1 ]; then
  command -v stress-ng >/dev/null || die "--stress needs stress-ng"
  stress-ng --cpu 2 --quiet &
  pids+=($!)
fi

# start_server ARGS...: starts truthserver, sets $url.
start_server() {
  "$work/truthserver" "$@" >"$work/url" 2>"$work/server.log" &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  url=$(head -1 "$work/url")
  [ -n "$url" ] || die "truthserver did not start: $(cat "$work/server.log")"
}
# truth URL [reset]: the server's wire and handler times as
# "wire_p50_us wire_p99_us count handler_p50_us handler_p99_us".
truth() {
  curl -fsS "${1}truth${2:+?reset=1}" | python3 -c 'import json,sys; d=json.load(sys.stdin); w=d["wire"]; print(w["p50_us"], w["p99_us"], w["count"], d["p50_us"], d["p99_us"])'
}

# run TOOL URL LABEL: one measured run; prints "p50_us p99_us conns_during".
run() {
  local t=$1 u=$2 j=$work/out.json
  local -a o=()
  [ -n "$keep" ] && o=(-o "$keep/$3.db")
  rm -f "$j"
  case "$t" in
    latlab) "$latlab" attack "$u" -r "$rate" -d "${secs}s" "${o[@]}" --format json >"$j" 2>/dev/null ;;
    latlab-warm) "$latlab" attack "$u" -r "$rate" -d "${secs}s" --warmup "$warmup" "${o[@]}" --format json >"$j" 2>/dev/null ;;
    shards) "$latlab" attack "$u" -r "$rate" -d "${secs}s" --shards 4 --local "${o[@]}" --format json >"$j" 2>/dev/null ;;
    shards-warm) "$latlab" attack "$u" -r "$rate" -d "${secs}s" --shards 4 --local --warmup "$warmup" "${o[@]}" --format json >"$j" 2>/dev/null ;;
    latlab-auto) "$latlab" attack "$u" -r "$rate" -d "${secs}s" --realtime=auto "${o[@]}" --format json >"$j" 2>/dev/null ;;
    latlab-rt) "$latlab" attack "$u" -r "$rate" -d "${secs}s" --realtime "${o[@]}" --format json >"$j" 2>/dev/null ;;
    shards-rt) "$latlab" attack "$u" -r "$rate" -d "${secs}s" --shards 4 --local --realtime "${o[@]}" --format json >"$j" 2>/dev/null ;;
    oha) oha --no-tui -c "$conns" -q "$rate" --latency-correction -z "${secs}s" -w --output-format json -o "$j" "$u" >/dev/null 2>&1 ;;
    wrk2) "$wrk2" -t "$(nproc)" -c "$conns" -d "${secs}s" -R "$rate" --latency "$u" >"$work/wrk2.out" 2>&1 ;;
  esac
  case "$t" in
    wrk2) awk 'function us(v, u, m) { u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
          m = (u == "us") ? 1 : (u == "ms") ? 1e3 : (u == "s") ? 1e6 : 0; return m ? v * m : "nan" }
        $1 == "50.000%" && p50 == "" {p50 = us($2)}
        $1 == "99.000%" && p99 == "" {p99 = us($2)}
        END { print (p50 == "" ? "nan" : p50), (p99 == "" ? "nan" : p99), "-" }' "$work/wrk2.out" ;;
    *) python3 - "$t" "$j" <<'PY' 2>/dev/null || echo nan nan -
import json, sys
t, d = sys.argv[1], json.load(open(sys.argv[2]))
if t == "oha":
    p = d["latencyPercentiles"]
    print(p["p50"] * 1e6, p["p99"] * 1e6, "-")
else:
    p = d["latency_seconds"]
    print(p["p50"] * 1e6, p["p99"] * 1e6, d.get("connect_seconds", {}).get("count", 0))
PY
      ;;
  esac
}

median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf 'truth.sh: %s, %s CPUs, %s; rate %s/s, %s s runs, warm-up %s, %s rounds%s\n' "$(date -u +%FT%TZ)" "$(nproc)" \
  "$(uname -r)" "$rate" "$secs" "$warmup" "$rounds" "$([ "$stress" = 1 ] && echo ', beside stress-ng --cpu 2')"
absent=""
[ -n "$wrk2" ] || absent="$absent wrk2 (\$WRK2, PATH or ../shared/peers/wrk2 beside the repository)"
command -v oha >/dev/null || absent="$absent oha"
[ -z "$absent" ] || echo "absent:$absent; not measured"

# The floor: one request at a time to the fast server, less its handler.
start_server -min 0 -max 0
fast=$url
truth "$fast" reset >/dev/null
"$latlab" attack "$fast" --sequential -d 2s --format json >"$work/floor.json" 2>/dev/null
read -r fw50 _ _ fh50 _ < <(truth "$fast" reset)
seq50=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency_seconds"]["p50"] * 1e6)' "$work/floor.json")
floor=$(awk -v a="$seq50" -v b="$fw50" 'BEGIN {printf "%.1f", a - b}')
printf 'floor: %s µs (one request at a time: latency p50 %.1f µs, of which the server %.1f µs, its handler %.1f µs)\n' "$floor" "$seq50" "$fw50" "$fh50"

# latlab-auto, by default, where this user may run real-time threads.
if [ "${rt:-0}" = 1 ] && "$latlab" attack "$fast" -r 10 -n 1 --realtime >/dev/null 2>&1; then
  tools="${tools/shards-warm/shards-warm latlab-auto}"
fi

for s in $servers; do
  if [ "$s" = slow ]; then
    start_server -min 1ms -max 3ms
    desc="sleeps a uniform 1-3 ms"
  else
    url=$fast
    desc="answers at once"
  fi
  : >"$work/figs"
  set -- $tools
  n=$#
  for r in $(seq "$rounds"); do
    for i in $(seq 0 $((n - 1))); do
      k=$(( (i + r - 1) % n + 1 ))
      t=${!k}
      truth "$url" reset >/dev/null
      read -r p50 p99 during < <(run "$t" "$url" "$s-$t-$r")
      read -r t50 t99 _ h50 h99 < <(truth "$url" reset)
      echo "$t $r $p50 $p99 $during $t50 $t99 $h50 $h99" >>"$work/figs"
      note "  $s round $r $t: p50 $p50 p99 $p99 µs; server $t50 / $t99 µs, handler $h50 / $h99 µs; opened during $during"
    done
  done
  printf '\nserver %s (%s), %s/s:\n' "$s" "$desc" "$rate"
  printf '  %-12s %9s %13s %6s %9s %13s %6s %8s %8s  %s\n' tool "p50 µs" "truth+floor" ratio "p99 µs" "truth+floor" ratio "hdl p50" "hdl p99" conns
  for t in $tools; do
    m() { awk -v t="$t" -v c="$1" '$1 == t && $c != "nan" && $c != "-" {print $c}' "$work/figs" | median; }
    p50=$(m 3) p99=$(m 4) t50=$(m 6) t99=$(m 7) h50=$(m 8) h99=$(m 9)
    during=$(awk -v t="$t" '$1 == t {printf "%s%s", sep, $5; sep = ","}' "$work/figs")
    awk -v t="$t" -v p50="$p50" -v p99="$p99" -v t50="$t50" -v t99="$t99" -v h50="$h50" -v h99="$h99" -v f="$floor" -v d="$during" 'BEGIN {
      e50 = t50 + f; e99 = t99 + f
      printf "  %-12s %9.1f %13.1f %6.3f %9.1f %13.1f %6.3f %8.1f %8.1f  %s\n", t, p50, e50, p50 / e50, p99, e99, p99 / e99, h50, h99, d }'
  done
done
