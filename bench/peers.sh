#!/usr/bin/env bash
# bench/peers.sh measures `latlab attack` against the HTTP load generators
# installed on this machine (wrk, ab, hey, fortio, oha; wrk2 for the open-loop
# ladder), all aimed at one local target, and prints each tool's median per
# scenario next to latlab's.
#
# Usage (from anywhere; `make bench-peers` runs it with the defaults):
#
#   bench/peers.sh [--rounds N] [--seconds S] [--only LIST] [--requests N]
#                  [--target nginx|serve] [--no-pin] [--install]
#                  [--rates LIST] [--step N] [--max-rate N] [--conns N]
#
#   --rounds N      rounds per scenario (default 3); tools take turns in each
#                   round, in an order rotated every round
#   --seconds S     length of each timed run (default 5)
#   --only LIST     scenarios to run, comma- or space-separated
#                   (default closed50,closed1,open20k,n1m,ladder)
#   --requests N    requests of the n1m scenario (default 1000000)
#   --rates LIST    first rates of the ladder, req/s, rising
#                   (default 10000,20000)
#   --step N        then the ladder climbs by N req/s until every tool falls
#                   short (default 20000; 0: the listed rates only)
#   --max-rate N    the ladder never goes above N req/s (default 400000)
#   --conns N       connections of wrk2, oha and fortio in the ladder
#                   (default 100)
#   --target T      nginx (default when installed) or serve (latlab serve)
#   --no-pin        do not pin the target and the load generators to CPUs
#   --install       install missing peers first: Debian packages wrk,
#                   apache2-utils, nginx-light (as root); hey and fortio with
#                   go install; oha with cargo install when cargo exists.
#                   Go and Rust tools go to $PEERS_BIN
#                   (default ~/.cache/latlab-peers/bin), which is on PATH here.
#
# Scenarios:
#   closed50  closed loop, 50 connections, S seconds: req/s, CPU µs per request
#             (user+sys of the tool / requests completed), peak RSS
#   closed1   closed loop, one connection, S seconds: p50 latency as the tool
#             prints it, with the resolution of its printout
#   open20k   latlab alone, open loop at 5,000 and 20,000 req/s for S seconds:
#             achieved send rate, lag p50 and p99 (how late requests left
#             against the schedule), latency p99; with pinning on, once
#             pinned and once on all CPUs
#   n1m       closed loop, 300 connections, N requests: wall time, peak RSS
#             (wrk cannot stop after N requests, so it sits this one out)
#   grpc      (not by default) latlab beside ghz over gRPC: bench/grpc.sh
#             with these rounds, seconds and pinning
#   ladder    open loop at each rate of the ladder for S seconds: latlab,
#             wrk2, oha and fortio; per tool and rate the achieved rate and
#             latency p50/p99 from the intended send time; each tool's
#             open-loop capacity, the highest rate at which it sent >= 99.5%
#             of its schedule, >= 99.5% of them answered 2xx/3xx, with
#             latency p99 <= 10 ms (median of the rounds' capacities)
#
# The target answers "ok\n" with status 200 to every GET. With two or more
# CPUs, the target is pinned to the last CPU and each load generator to the
# others, so every tool gets the same CPUs and none competes with the target.
# Needs bash, GNU time (/usr/bin/time), curl, coreutils, ss, and jq or
# python3; taskset for the pinning. $GO names the go command (default go).
# Tools are looked up on PATH, in $PEERS_BIN and in ~/.cargo/bin; wrk2 on
# PATH, else beside the repository in ../shared/peers/wrk2, and $WRK2 names
# it when it is elsewhere.
set -euo pipefail

rounds=3
secs=5
scenarios="closed50 closed1 open20k n1m ladder"
n1m_requests=1000000
ladder_rates="10000 20000"
ladder_step=20000
ladder_max=400000
ladder_conns=100
target=""
pin=1
install=0

die() { printf 'peers.sh: %s\n' "$*" >&2; exit 2; }
note() { printf '%s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:?}; shift 2 ;;
    --seconds) secs=${2:?}; shift 2 ;;
    --only) scenarios=${2:?}; shift 2 ;;
    --requests) n1m_requests=${2:?}; shift 2 ;;
    --target) target=${2:?}; shift 2 ;;
    --no-pin) pin=0; shift ;;
    --install) install=1; shift ;;
    --rates) ladder_rates=${2:?}; shift 2 ;;
    --step) ladder_step=${2:?}; shift 2 ;;
    --max-rate) ladder_max=${2:?}; shift 2 ;;
    --conns) ladder_conns=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
scenarios=${scenarios//,/ }
for v in "$rounds" "$secs" "$n1m_requests"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "--rounds, --seconds and --requests take a positive integer, not $v"
done
for s in $scenarios; do
  case "$s" in closed50 | closed1 | open20k | n1m | ladder | grpc) ;; *) die "unknown scenario $s" ;; esac
done
ladder_rates=${ladder_rates//,/ }
for v in $ladder_rates "$ladder_max" "$ladder_conns"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "--rates, --max-rate and --conns take positive integers, not $v"
done
[[ $ladder_step =~ ^(0|[1-9][0-9]*)$ ]] || die "--step takes a whole number of req/s, not $ladder_step"
last=0
for v in $ladder_rates; do
  [ "$v" -gt "$last" ] || die "--rates must rise, and $v does not follow $last"
  [ "$v" -le "$ladder_max" ] || die "--rates: $v is above --max-rate $ladder_max"
  last=$v
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PEERS_BIN=${PEERS_BIN:-$HOME/.cache/latlab-peers/bin}
export PATH="$PEERS_BIN:$PATH:$HOME/.cargo/bin"
[ -x /usr/bin/time ] || die "GNU time is required (/usr/bin/time; Debian package time)"
command -v curl >/dev/null || die "curl is required"
command -v jq >/dev/null || command -v python3 >/dev/null || die "jq or python3 is required"

# ---------------------------------------------------------------- install
install_peers() {
  local pkgs=""
  command -v wrk >/dev/null || pkgs="$pkgs wrk"
  command -v ab >/dev/null || pkgs="$pkgs apache2-utils"
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || pkgs="$pkgs nginx-light"
  if [ -n "$pkgs" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      note "installing:$pkgs"
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs; } >/dev/null 2>&1 ||
        note "apt-get failed; going on without:$pkgs"
    else
      note "not root or no apt-get; going on without:$pkgs"
    fi
  fi
  mkdir -p "$PEERS_BIN"
  # Versions are pinned so that two runs months apart compare the same peers.
  command -v hey >/dev/null || GOBIN="$PEERS_BIN" "${GO:-go}" install github.com/rakyll/hey@${HEY_VERSION:-v0.1.5} || note "hey not installed"
  command -v fortio >/dev/null || GOBIN="$PEERS_BIN" "${GO:-go}" install fortio.org/fortio@${FORTIO_VERSION:-v1.63.0} || note "fortio not installed"
  if ! command -v oha >/dev/null && command -v cargo >/dev/null; then
    cargo install --locked --root "$(dirname "$PEERS_BIN")" oha || note "oha not installed"
  fi
}
[ "$install" = 1 ] && install_peers

# ---------------------------------------------------------------- set-up
work=$(mktemp -d "${TMPDIR:-/tmp}/latlab-peers.XXXXXX")
target_pid=""
cleanup() {
  if [ -n "$target_pid" ]; then kill "$target_pid" 2>/dev/null || true; wait "$target_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

note "building ./cmd/latlab"
"${GO:-go}" build -o "$work/latlab" ./cmd/latlab
latlab=$work/latlab

ncpu=$(nproc)
if [ "$pin" = 1 ] && [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null; then
  target_cpus=$((ncpu - 1))
  load_cpus="0-$((ncpu - 2))"
  load_ncpu=$((ncpu - 1))
  target_prefix=(taskset -c "$target_cpus")
  load_prefix=(taskset -c "$load_cpus")
else
  pin=0
  load_ncpu=$ncpu
  target_prefix=()
  load_prefix=()
fi

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
port=$(free_port)
url="http://127.0.0.1:$port/"

nginx_bin=$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true)
[ -n "$target" ] || { [ -n "$nginx_bin" ] && target=nginx || target=serve; }
case "$target" in
  nginx)
    [ -n "$nginx_bin" ] || die "--target nginx: nginx is not installed"
    cat >"$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.log;
events { worker_connections 16384; }
http {
  access_log off;
  keepalive_requests 1000000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:$port backlog=4096;
    location / { return 200 "ok\n"; }
  }
}
EOF
    ${target_prefix[@]+"${target_prefix[@]}"} "$nginx_bin" -p "$work" -c "$work/nginx.conf" &
    target_pid=$!
    target_desc="nginx $("$nginx_bin" -v 2>&1 | sed 's|.*nginx/||'), 1 worker, returns \"ok\\n\""
    ;;
  serve)
    ${target_prefix[@]+"${target_prefix[@]}"} "$latlab" serve --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
    target_pid=$!
    target_desc="latlab serve, route / (no work)"
    ;;
  *) die "--target is nginx or serve, not $target" ;;
esac
for _ in $(seq 100); do
  curl -fs -o /dev/null "$url" && break
  kill -0 "$target_pid" 2>/dev/null || die "the target exited; see its log"
  sleep 0.1
done
curl -fs -o /dev/null "$url" || die "the target does not answer at $url"

tools="latlab"
for t in wrk ab hey fortio oha; do command -v "$t" >/dev/null && tools="$tools $t"; done
# wrk2 only runs in the ladder: it has no closed loop.
wrk2=${WRK2:-$(command -v wrk2 || true)}
[ -n "$wrk2" ] || [ ! -x "$root/../shared/peers/wrk2/wrk2" ] || wrk2="$root/../shared/peers/wrk2/wrk2"
[ -z "$wrk2" ] || [ -x "$wrk2" ] || die "WRK2=$wrk2 is not an executable file"
ladder=0
case " $scenarios " in *" ladder "*) ladder=1 ;; esac

version_of() {
  case "$1" in
    latlab) "$latlab" version 2>/dev/null | head -1 | sed 's/^latlab //' ;;
    wrk) wrk -v 2>&1 | head -1 | awk '{print $2}' ;;
    ab) ab -V | head -1 | sed 's/.*Version //; s/ .*//' ;;
    hey) "${GO:-go}" version -m "$(command -v hey)" 2>/dev/null | awk '$1 == "mod" {print $3}' ;;
    fortio) fortio version 2>/dev/null | head -1 ;;
    oha) oha --version 2>/dev/null | awk '{print $2}' ;;
    wrk2) "$wrk2" -v 2>&1 | head -1 | awk '{print $2}' ;;
  esac
}

# ---------------------------------------------------------------- measuring
# results.tsv holds one line per figure: scenario tool round key value.
results=$work/results.tsv
: >"$results"
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"; }

# measure LIMIT CMD...: runs CMD on the load CPUs, stopped after LIMIT
# seconds; stdout and stderr land in $work/out, "wall user sys maxrss_kB" in
# $work/rusage (GNU time counts the tool, which timeout waits for).
measure() {
  local limit=$1; shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/rusage" \
    timeout --foreground --signal=INT --kill-after=10 "$limit" ${load_prefix[@]+"${load_prefix[@]}"} "$@" >"$work/out" 2>&1 || true
}
wall_s() { awk 'END {print $1}' "$work/rusage"; }
cpu_s() { awk 'END {print $2 + $3}' "$work/rusage"; }
rss_mb() { awk 'END {printf "%.1f", $4 / 1024}' "$work/rusage"; }

jget() {
  if command -v jq >/dev/null; then
    jq -r ".$1 // \"nan\"" "$work/out" 2>/dev/null || echo nan
  else
    python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print("nan" if v is None else v)' "$work/out" "$1" 2>/dev/null || echo nan
  fi
}
# to_us VALUE UNIT: a duration in microseconds.
to_us() { awk -v v="$1" -v u="$2" 'BEGIN {
  f = (u ~ /^(us|µs)$/) ? 1 : (u == "ms") ? 1e3 : (u ~ /^(s|sec|secs)$/) ? 1e6 : 0
  if (v == "" || f == 0) print "nan"; else printf "%.2f", v * f }'; }
or_nan() { local v; v=$(cat); echo "${v:-nan}"; }

# rps, done (requests completed) and p50_us read from $work/out, per tool.
rps() {
  case "$1" in
    latlab) jget throughput ;;
    wrk | hey) awk '/^ *Requests\/sec:/ {print $2}' "$work/out" | or_nan ;;
    ab) awk '/^Requests per second:/ {print $4}' "$work/out" | or_nan ;;
    fortio) sed -n 's/^All done .* \([0-9.]*\) qps$/\1/p' "$work/out" | tail -1 | or_nan ;;
    oha) awk '/Requests\/sec:/ {print $2}' "$work/out" | head -1 | or_nan ;;
  esac
}
done_requests() {
  case "$1" in
    latlab) jget requests ;;
    wrk) awk '/ requests in / {print $1}' "$work/out" | or_nan ;;
    ab) awk '/^Complete requests:/ {print $3}' "$work/out" | or_nan ;;
    hey | oha) awk '/^ *\[[0-9]+\]/ {n += $2} END {print n + 0}' "$work/out" ;;
    fortio) sed -n 's/^All done \([0-9]*\) calls.*/\1/p' "$work/out" | tail -1 | or_nan ;;
  esac
}
p50_us() {
  local v u
  case "$1" in
    latlab) v=$(jget latency_seconds.p50); to_us "$v" s ;;
    wrk)
      read -r v u < <(awk '$1 == "50%" {s = $2; sub(/[a-z]+$/, "", s); u = $2; sub(/^[0-9.]+/, "", u); print s, u; exit}' "$work/out")
      to_us "${v:-}" "${u:-}" ;;
    ab) v=$(awk '/^ *50% / {print $2; exit}' "$work/out"); to_us "$v" ms ;;
    hey) v=$(awk '/^ *50%+ in / {print $3; exit}' "$work/out"); to_us "$v" s ;;
    fortio) v=$(awk '/^# target 50% / {print $4; exit}' "$work/out"); to_us "$v" s ;;
    oha) read -r v u < <(awk '/^ *50(\.0+)?% in / {print $3, $4; exit}' "$work/out"); to_us "${v:-}" "${u:-}" ;;
  esac
}
# The resolution of the p50 each tool prints, for closed1.
resolution() {
  case "$1" in
    latlab) echo "HdrHistogram, 3 digits" ;;
    wrk) echo "2 decimals of its unit (us)" ;;
    ab) echo "1 ms" ;;
    hey) echo "0.1 ms (4 decimals of s)" ;;
    oha) echo "4 decimals of the unit it prints" ;;
    fortio) echo "-r 1e-6 buckets" ;;
  esac
}

# closed TOOL CONNS: one closed-loop run of $secs seconds.
closed() {
  local t=$1 c=$2 threads=$((load_ncpu < $2 ? load_ncpu : $2)) lim=$((secs + 30))
  case "$t" in
    latlab) measure $lim "$latlab" attack "$url" -c "$c" -d "${secs}s" --format json ;;
    wrk) measure $lim wrk -t "$threads" -c "$c" -d "${secs}s" --latency "$url" ;;
    ab) measure $lim ab -q -k -c "$c" -t "$secs" -n $((secs * 1000000)) "$url" ;;
    hey) measure $lim hey -c "$c" -z "${secs}s" "$url" ;;
    fortio) measure $lim fortio load -qps 0 -c "$c" -t "${secs}s" -r 0.000001 -p 50,99 "$url" ;;
    oha) measure $lim oha --no-tui -c "$c" -z "${secs}s" "$url" ;;
  esac
}
# total TOOL CONNS N: a closed-loop run of N requests.
total() {
  local t=$1 c=$2 n=$3 lim=600
  case "$t" in
    latlab) measure $lim "$latlab" attack "$url" -c "$c" -n "$n" --format json ;;
    ab) measure $lim ab -q -k -c "$c" -n "$n" "$url" ;;
    hey) measure $lim hey -c "$c" -n "$n" "$url" ;;
    fortio) measure $lim fortio load -qps 0 -c "$c" -n "$n" "$url" ;;
    oha) measure $lim oha --no-tui -c "$c" -n "$n" "$url" ;;
  esac
}
# rotate ROUND TOOL...: the tools, starting at a different one every round;
# rotated ROUND does it for $tools.
rotate() {
  local r=$1; shift
  local -a ts=("$@")
  local k=$((r % ${#ts[@]})) i
  for ((i = 0; i < ${#ts[@]}; i++)); do printf '%s ' "${ts[(k + i) % ${#ts[@]}]}"; done
}
rotated() { rotate "$1" $tools; }

# ---------------------------------------------------------------- ladder
# The ladder's tools.
ladder_tools="latlab"
[ -n "$wrk2" ] && ladder_tools="$ladder_tools wrk2"
for t in oha fortio; do command -v "$t" >/dev/null && ladder_tools="$ladder_tools $t"; done
wrk2_threads=$((load_ncpu < ladder_conns ? load_ncpu : ladder_conns))

# open_run TOOL RATE: one open-loop run of $secs seconds at RATE req/s;
# the JSON result (latlab, oha, fortio) lands in $work/open.json.
open_run() {
  local t=$1 rate=$2 lim=$((secs + 30))
  rm -f "$work/open.json"
  case "$t" in
    latlab) measure $lim "$latlab" attack "$url" -r "$rate" -d "${secs}s" --format json -o "$work/open.json" ;;
    wrk2) measure $lim "$wrk2" -t "$wrk2_threads" -c "$ladder_conns" -d "${secs}s" -R "$rate" --latency "$url" ;;
    oha) measure $lim oha --no-tui -c "$ladder_conns" -q "$rate" --latency-correction -z "${secs}s" -w \
      --output-format json -o "$work/open.json" "$url" ;;
    fortio) measure $lim fortio load -qps "$rate" -c "$ladder_conns" -t "${secs}s" -r 0.000001 -p 50,99 \
      -json "$work/open.json" "$url" ;;
  esac
}

# open_figures TOOL: "sent failed p50_us p99_us" of the last open_run, from
# the tool's own output (nan where it printed none). sent: latlab's sent,
# oha's responses and errors, fortio's calls, wrk2's completed requests;
# failed: those of them without a 2xx or 3xx answer.
open_figures() {
  case "$1" in
    wrk2)
      awk 'function us(v, u, m) { u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
          m = (u == "us") ? 1 : (u == "ms") ? 1e3 : (u == "s") ? 1e6 : (u == "m") ? 6e7 : (u == "h") ? 3.6e9 : 0
          return m ? sprintf("%.2f", v * m) : "nan" }
        /^ *[0-9]+ requests in / {n = $1}
        /Socket errors:/ {gsub(",", ""); f += $4 + $6 + $8}
        /Non-2xx or 3xx responses:/ {f += $NF}
        $1 == "50.000%" && p50 == "" {p50 = us($2)}
        $1 == "99.000%" && p99 == "" {p99 = us($2)}
        END { print (n == "" ? "nan" : n), f + 0, (p50 == "" ? "nan" : p50), (p99 == "" ? "nan" : p99) }' "$work/out" ;;
    *) open_json "$1" "$work/open.json" | awk '{ for (i = 3; i <= 4; i++) if ($i != "nan") $i = sprintf("%.2f", $i * 1e6); print }' ;;
  esac
}
# open_json TOOL FILE: "sent failed p50_s p99_s" from a JSON result.
open_json() {
  local ok='[to_entries[] | select(.key | test("^[23]")) | .value] | add // 0' f
  if command -v jq >/dev/null; then
    case "$1" in
      latlab) f="[.sent, .sent - (.status_codes // {} | $ok), .latency_seconds.p50, .latency_seconds.p99]" ;;
      oha) f="([.statusCodeDistribution[], .errorDistribution[]] | add // 0) as \$n
        | [\$n, \$n - (.statusCodeDistribution | $ok), .latencyPercentiles.p50, .latencyPercentiles.p99]" ;;
      fortio) f="[.DurationHistogram.Count, .DurationHistogram.Count - (.RetCodes // {} | $ok),
        (.DurationHistogram.Percentiles[] | select(.Percentile == 50) | .Value),
        (.DurationHistogram.Percentiles[] | select(.Percentile == 99) | .Value)]" ;;
    esac
    jq -r "$f | map(if . == null then \"nan\" else tostring end) | join(\" \")" "$2" 2>/dev/null || echo nan nan nan nan
  else
    python3 - "$1" "$2" <<'PY' 2>/dev/null || echo nan nan nan nan
import json, sys
tool, d = sys.argv[1], json.load(open(sys.argv[2]))
def ok(codes): return sum(v for k, v in (codes or {}).items() if k[:1] in "23")
if tool == "latlab":
    n, codes, p = d["sent"], d.get("status_codes"), d["latency_seconds"]
    p50, p99 = p.get("p50"), p.get("p99")
elif tool == "oha":
    codes = d["statusCodeDistribution"]
    n = sum(codes.values()) + sum(d["errorDistribution"].values())
    p50, p99 = d["latencyPercentiles"].get("p50"), d["latencyPercentiles"].get("p99")
else:
    h, codes = d["DurationHistogram"], d.get("RetCodes")
    n, q = h["Count"], {x["Percentile"]: x["Value"] for x in h["Percentiles"]}
    p50, p99 = q.get(50), q.get(99)
print(" ".join("nan" if v is None else str(v) for v in (n, n - ok(codes), p50, p99)))
PY
  fi
}
# sched_s TOOL: the seconds of a run's schedule. wrk2 opens the connections
# of each thread 5 ms apart and starts each one's schedule when it connects,
# all stopping at -d, so at rate R its schedule holds R × (S − 2.5 ms ×
# (connections per thread − 1)) requests; the others' hold R × S.
sched_s() {
  case "$1" in
    wrk2) awk -v s="$secs" -v n=$((ladder_conns / wrk2_threads)) 'BEGIN { printf "%.4f", s - 0.0025 * (n - 1) }' ;;
    *) echo "$secs" ;;
  esac
}

# ---------------------------------------------------------------- summary
# median SCENARIO TOOL KEY, and spread (max-min)/median in percent.
stat() {
  awk -F'\t' -v s="$1" -v t="$2" -v k="$3" '$1 == s && $2 == t && $4 == k && $5 != "nan" && $5 != "" {print $5}' "$results" |
    sort -g | awk -v what="$4" '{a[NR] = $1} END {
      if (NR == 0) {print "nan"; exit}
      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
      if (what == "spread") { if (m > 0) printf "%.0f", 100 * (a[NR] - a[1]) / m; else print "nan" } else print m }'
}
median() { stat "$1" "$2" "$3" median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
fmt() { awk -v v="$1" -v f="$2" 'BEGIN { if (v == "nan" || v == "") print "-"; else printf f, v }'; }

# ---------------------------------------------------------------- header
model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "# latlab attack vs. peers — bench/peers.sh --rounds $rounds --seconds $secs --only ${scenarios// /,}"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine:  $ncpu CPUs ($(nproc --all) online), ${model:-unknown CPU}, Linux $(uname -r)"
if [ "$pin" = 1 ]; then
  echo "pinning:  target on CPU $target_cpus, load generators on CPUs $load_cpus"
else
  echo "pinning:  none"
fi
echo "target:   $target_desc at $url"
printf 'tools:   '
for t in $tools; do printf ' %s %s;' "$t" "$(version_of "$t")"; done
[ "$ladder" = 1 ] && [ -n "$wrk2" ] && printf ' wrk2 %s (%s);' "$(version_of wrk2)" "$wrk2"
echo
missing=""
for t in wrk ab hey fortio oha; do command -v "$t" >/dev/null || missing="$missing $t"; done
[ "$ladder" = 1 ] && [ -z "$wrk2" ] && missing="$missing wrk2"
[ -z "$missing" ] || echo "absent:  $missing (not measured; --install adds what it can)"
echo "Every figure is the median over rounds; ×latlab = the tool's figure ÷ latlab's."

# ---------------------------------------------------------------- scenarios
for sc in $scenarios; do
  case "$sc" in
  closed50)
    note "closed50: $rounds rounds × {$tools} × ${secs}s"
    for r in $(seq "$rounds"); do
      for t in $(rotated "$r"); do
        closed "$t" 50
        n=$(done_requests "$t")
        record closed50 "$t" "$r" rps "$(rps "$t")"
        record closed50 "$t" "$r" rss_mb "$(rss_mb)"
        record closed50 "$t" "$r" cpu_us "$(awk -v c="$(cpu_s)" -v n="$n" 'BEGIN { if (n + 0 > 0) printf "%.3f", c * 1e6 / n; else print "nan" }')"
      done
    done
    echo
    echo "closed50: closed loop, 50 connections, ${secs} s, $rounds rounds"
    printf '  %-7s %10s %7s %8s %11s %8s %8s %8s\n' tool req/s spread ×latlab "CPU µs/req" ×latlab "RSS MB" ×latlab
    L_rps=$(median closed50 latlab rps); L_cpu=$(median closed50 latlab cpu_us); L_rss=$(median closed50 latlab rss_mb)
    for t in $tools; do
      m_rps=$(median closed50 "$t" rps); m_cpu=$(median closed50 "$t" cpu_us); m_rss=$(median closed50 "$t" rss_mb)
      printf '  %-7s %10s %6s%% %8s %11s %8s %8s %8s\n' "$t" "$(fmt "$m_rps" %.0f)" "$(stat closed50 "$t" rps spread)" \
        "$(ratio "$m_rps" "$L_rps")" "$(fmt "$m_cpu" %.2f)" "$(ratio "$m_cpu" "$L_cpu")" "$(fmt "$m_rss" %.1f)" "$(ratio "$m_rss" "$L_rss")"
    done
    ;;
  closed1)
    note "closed1: $rounds rounds × {$tools} × ${secs}s"
    for r in $(seq "$rounds"); do
      for t in $(rotated "$r"); do
        closed "$t" 1
        record closed1 "$t" "$r" p50_us "$(p50_us "$t")"
        record closed1 "$t" "$r" rps "$(rps "$t")"
      done
    done
    echo
    echo "closed1: one connection, ${secs} s, $rounds rounds: p50 latency as each tool prints it"
    printf '  %-7s %10s %8s %10s  %s\n' tool "p50 µs" ×latlab req/s "printed resolution"
    L_p50=$(median closed1 latlab p50_us)
    for t in $tools; do
      m=$(median closed1 "$t" p50_us)
      shown=$(fmt "$m" %.1f) x=$(ratio "$m" "$L_p50")
      # ab prints whole milliseconds and hey 0.1 ms: a 0 there means "below one step".
      if awk -v m="$m" 'BEGIN { exit !(m == "0" || m + 0 == 0 && m != "nan") }'; then
        case "$t" in ab) shown="<1000" x="-" ;; hey) shown="<100" x="-" ;; esac
      fi
      printf '  %-7s %10s %8s %10s  %s\n' "$t" "$shown" "$x" "$(fmt "$(median closed1 "$t" rps)" %.0f)" "$(resolution "$t")"
    done
    ;;
  open20k)
    # With pinning on, latlab also runs unpinned (sharing the target's CPUs),
    # so a schedule that slips on one CPU shows next to one that has them all.
    # 5,000/s beside 20,000/s: the lag of a light schedule, where the wake-up
    # is all there is to it.
    variants="unpinned"
    [ "$pin" = 1 ] && variants="pinned unpinned"
    open_rates="5000 20000"
    note "open20k: $rounds rounds × latlab ($variants) × {$open_rates} req/s × ${secs}s"
    for r in $(seq "$rounds"); do
      for rate in $open_rates; do
        for v in $variants; do
          if [ "$v" = unpinned ]; then
            saved=(${load_prefix[@]+"${load_prefix[@]}"}); load_prefix=()
          fi
          measure $((secs + 30)) "$latlab" attack "$url" -r "$rate" -d "${secs}s" --format json
          [ "$v" = unpinned ] && load_prefix=(${saved[@]+"${saved[@]}"})
          record open20k "$v@$rate" "$r" rate "$(jget rate)"
          record open20k "$v@$rate" "$r" lag_p50_us "$(to_us "$(jget lag_seconds.p50)" s)"
          record open20k "$v@$rate" "$r" lag_p99_us "$(to_us "$(jget lag_seconds.p99)" s)"
          record open20k "$v@$rate" "$r" lat_p99_us "$(to_us "$(jget latency_seconds.p99)" s)"
          record open20k "$v@$rate" "$r" inflight_max "$(jget in_flight.max)"
          record open20k "$v@$rate" "$r" unsent "$(jget unsent)"
        done
      done
    done
    echo
    echo "open20k: latlab open loop at 5000 and 20000 req/s, ${secs} s, $rounds rounds"
    printf '  %-28s %8s %8s %11s %11s %11s %9s %7s\n' latlab "sent/s" ×target "lag p50 µs" "lag p99 µs" "lat p99 µs" "in flight" unsent
    for rate in $open_rates; do
      for v in $variants; do
        k="$v@$rate"
        m_rate=$(median open20k "$k" rate)
        if [ "$pin" = 0 ]; then label="no pinning"
        elif [ "$v" = pinned ]; then label="on CPUs $load_cpus"
        else label="unpinned, all $ncpu CPUs"; fi
        printf '  %-28s %8s %8s %11s %11s %11s %9s %7s\n' "$rate/s, $label" "$(fmt "$m_rate" %.0f)" "$(ratio "$m_rate" "$rate")" \
          "$(fmt "$(median open20k "$k" lag_p50_us)" %.1f)" "$(fmt "$(median open20k "$k" lag_p99_us)" %.1f)" \
          "$(fmt "$(median open20k "$k" lat_p99_us)" %.1f)" \
          "$(fmt "$(median open20k "$k" inflight_max)" %.0f)" "$(fmt "$(median open20k "$k" unsent)" %.0f)"
      done
    done
    ;;
  n1m)
    n1m_tools=""
    for t in $tools; do [ "$t" = wrk ] || n1m_tools="${n1m_tools:+$n1m_tools }$t"; done
    note "n1m: $rounds rounds × {$n1m_tools} × $n1m_requests requests"
    for r in $(seq "$rounds"); do
      for t in $(rotated "$r"); do
        [ "$t" = wrk ] && continue
        total "$t" 300 "$n1m_requests"
        n=$(done_requests "$t")
        # hey sends N/c requests per worker, so a count 1% short still counts.
        if awk -v n="$n" -v want="$n1m_requests" 'BEGIN { exit !(n + 0 >= 0.99 * want) }'; then
          record n1m "$t" "$r" wall_s "$(wall_s)"
          record n1m "$t" "$r" rps "$(awk -v n="$n" -v w="$(wall_s)" 'BEGIN { if (w > 0) printf "%.0f", n / w; else print "nan" }')"
        else
          note "n1m: $t completed $n of $n1m_requests requests; round $r not counted"
        fi
        record n1m "$t" "$r" rss_mb "$(rss_mb)"
        record n1m "$t" "$r" cpu_us "$(awk -v c="$(cpu_s)" -v n="$n" 'BEGIN { if (n + 0 > 0) printf "%.3f", c * 1e6 / n; else print "nan" }')"
      done
    done
    echo
    echo "n1m: closed loop, 300 connections, $n1m_requests requests, $rounds rounds (wrk has no request count)"
    printf '  %-7s %8s %8s %10s %11s %8s %8s\n' tool "wall s" ×latlab "req/s" "CPU µs/req" "RSS MB" ×latlab
    L_wall=$(median n1m latlab wall_s); L_rss=$(median n1m latlab rss_mb)
    for t in $n1m_tools; do
      m_wall=$(median n1m "$t" wall_s); m_rss=$(median n1m "$t" rss_mb)
      printf '  %-7s %8s %8s %10s %11s %8s %8s\n' "$t" "$(fmt "$m_wall" %.2f)" "$(ratio "$m_wall" "$L_wall")" \
        "$(fmt "$(median n1m "$t" rps)" %.0f)" \
        "$(fmt "$(median n1m "$t" cpu_us)" %.2f)" "$(fmt "$m_rss" %.1f)" "$(ratio "$m_rss" "$L_rss")"
    done
    ;;
  ladder)
    note "ladder: $rounds rounds × {$ladder_tools} × ${secs}s per rate, from ${ladder_rates%% *} req/s until every tool falls short"
    rates_left=($ladder_rates)
    rate=0 climbed="" top=1
    while :; do
      if [ ${#rates_left[@]} -gt 0 ]; then
        rate=${rates_left[0]} rates_left=("${rates_left[@]:1}")
      elif [ "$ladder_step" -gt 0 ] && [ $((rate + ladder_step)) -le "$ladder_max" ]; then
        rate=$((rate + ladder_step))
      else
        break
      fi
      note "ladder: $rate req/s"
      key=$(printf '%06d' "$rate") met_here=0
      for r in $(seq "$rounds"); do
        for t in $(rotate "$r" $ladder_tools); do
          open_run "$t" "$rate"
          read -r n failed p50 p99 < <(open_figures "$t")
          met=$(awk -v n="$n" -v f="$failed" -v s="$(sched_s "$t")" -v r="$rate" -v p99="$p99" 'BEGIN {
            print (n != "nan" && p99 != "nan" && n >= 0.995 * r * s && f <= 0.005 * n && p99 <= 10000) ? 1 : 0 }')
          record ladder "$t" "$r" "$key:sent_s" "$(awk -v n="$n" -v s="$(sched_s "$t")" 'BEGIN { if (n == "nan") print "nan"; else printf "%.1f", n / s }')"
          record ladder "$t" "$r" "$key:failed" "$failed"
          record ladder "$t" "$r" "$key:p50_us" "$p50"
          record ladder "$t" "$r" "$key:p99_us" "$p99"
          record ladder "$t" "$r" "$key:met" "$met"
          met_here=$((met_here + met))
        done
      done
      climbed="$climbed $rate"
      [ "$met_here" = 0 ] && { top=0; break; }
    done
    echo
    echo "ladder: open loop, ${secs} s per rate, $rounds rounds: latlab attack -r R (its defaults),"
    echo "  wrk2 -t $wrk2_threads -c $ladder_conns -R R, oha -c $ladder_conns -q R --latency-correction, fortio -c $ladder_conns -qps R"
    echo "  open-loop capacity: the highest rate with >= 99.5% of the schedule sent, >= 99.5% of it answered 2xx/3xx," \
      "latency p99 <= 10 ms; median of the rounds (the lower one of an even count)"
    printf '  %-7s %10s %8s  %s\n' tool capacity ×latlab "per round"
    first=${ladder_rates%% *}
    for t in $ladder_tools; do
      for r in $(seq "$rounds"); do
        record ladder "$t" "$r" capacity "$(awk -F'\t' -v t="$t" -v r="$r" '$1 == "ladder" && $2 == t && $3 == r && $4 ~ /:met$/ && $5 == 1 {
          k = $4; sub(/:.*/, "", k); if (k + 0 > c) c = k + 0 } END {print c + 0}' "$results")"
      done
    done
    # The lower median, so that a capacity is always a rate of the ladder.
    capacity() {
      awk -F'\t' -v t="$1" '$1 == "ladder" && $2 == t && $4 == "capacity" {print $5}' "$results" |
        sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)] + 0}'
    }
    L_cap=$(capacity latlab)
    for t in $ladder_tools; do
      m=$(capacity "$t")
      shown=$(fmt "$m" %.0f)
      [ "$m" = 0 ] && shown="<$first"
      [ "$top" = 1 ] && [ "$m" = "$rate" ] && shown=">=$m"
      x=$(ratio "$m" "$L_cap")
      [ "$m" = 0 ] && x="-"
      printf '  %-7s %10s %8s  %s\n' "$t" "$shown" "$x" \
        "$(awk -F'\t' -v t="$t" '$1 == "ladder" && $2 == t && $4 == "capacity" {printf "%s%s", sep, $5; sep = " "}' "$results")"
    done
    echo
    printf '  %7s %-7s %9s %7s %7s %10s %10s %5s\n' rate tool "sent/s" ×rate failed "p50 µs" "p99 µs" met
    for rate in $climbed; do
      key=$(printf '%06d' "$rate")
      for t in $ladder_tools; do
        m_sent=$(median ladder "$t" "$key:sent_s")
        printf '  %7s %-7s %9s %7s %7s %10s %10s %5s\n' "$rate" "$t" "$(fmt "$m_sent" %.0f)" "$(ratio "$m_sent" "$rate")" \
          "$(fmt "$(median ladder "$t" "$key:failed")" %.0f)" "$(fmt "$(median ladder "$t" "$key:p50_us")" %.1f)" \
          "$(fmt "$(median ladder "$t" "$key:p99_us")" %.1f)" \
          "$(awk -F'\t' -v t="$t" -v k="$key:met" '$1 == "ladder" && $2 == t && $4 == k {m += $5; n++} END {print m "/" n}' "$results")"
      done
    done
    echo "  sent/s: requests sent per second of the tool's schedule (wrk2: completed; its schedule starts per"
    echo "  connection as it connects, 5 ms apart, so it is $(sched_s wrk2) s of the ${secs} s); met: rounds meeting the bar."
    echo "  Latency runs from the intended send time, except fortio's: from the moment it actually sent the"
    echo "  request, so fortio's latency leaves out how late a request left; falling behind shows in its sent/s."
    [ "$top" = 1 ] && echo "  The ladder stopped at $rate req/s (--rates, --step, --max-rate) before every tool fell short."
    ;;
  grpc)
    echo
    args=(--rounds "$rounds" --seconds "$secs")
    [ "$pin" = 1 ] || args+=(--no-pin)
    "$root/bench/grpc.sh" "${args[@]}" 2>/dev/null | sed 's/^# /## /'
    ;;
  esac
done

# ---------------------------------------------------------------- raw figures
echo
echo "per-round figures (scenario tool figure: round 1, 2, ...):"
sort -t$'\t' -k1,1 -k2,2 -k4,4 -k3,3n "$results" | awk -F'\t' '
  { id = $1 " " $2 " " $4; if (id != last) { if (last != "") print line; line = "  " id ":"; last = id } line = line " " ($5 == "nan" ? "nan" : sprintf("%.6g", $5)) }
  END { if (last != "") print line }'
