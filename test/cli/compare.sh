#!/usr/bin/env bash
# Runs the same latlab commands with two binaries and says whether they
# print the same: the proof that a change meant to move code, not
# behaviour, did not. For each command it compares stdout, stderr and the
# exit code.
#
#   bash test/cli/compare.sh OLD_LATLAB NEW_LATLAB [--db RESULTS.db]
#
# The commands: every command's --help and `latlab spec`; a dry run of
# every example spec; the error cases a user meets (unknown keys and
# flags, bad rates, URLs and durations, mistyped commands, a spec that
# does not fit together); `scale` and `compare` on the benchcmp package's
# test inputs; and, on a results database, `ls` and `report`
# in each format (HTML included) and table, with and without flagged
# runs. Without --db it records one with NEW_LATLAB: a 2-variant study of
# latlab's own nodes on 127.0.0.1, about 20 s.
#
# Exit status: 0 when every output is the same, 1 when one differs (the
# diffs are printed), 2 on a usage error.
set -uo pipefail

usage() { echo "usage: $0 OLD_LATLAB NEW_LATLAB [--db RESULTS.db]" >&2; exit 2; }
[ $# -ge 2 ] || usage
old=$(realpath "$1") new=$(realpath "$2"); shift 2
db=""
while [ $# -gt 0 ]; do
  case "$1" in
    --db) [ $# -ge 2 ] || usage; db=$(realpath "$2"); shift 2 ;;
    *) usage ;;
  esac
done
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "$0: $b is not an executable" >&2; exit 2; }
done

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$repo"

# The error cases, as spec files in the work folder.
mkdir -p "$work/specs"
spec() { cat > "$work/specs/$1.yaml"; }
spec unknown-key <<'EOF'
version: 1
name: e
variants: [{name: a, target: "http://127.0.0.1:18080/"}]
load: {mode: open, rates: [100], duration: 1s}
rnus: 3
EOF
spec rate-with-unit <<'EOF'
version: 1
name: e
variants: [{name: a, target: "http://127.0.0.1:18080/"}]
load: {mode: open, rates: [500/s], duration: 1s}
EOF
spec bad-rate <<'EOF'
version: 1
name: e
variants: [{name: a, target: "http://127.0.0.1:18080/"}]
load: {mode: open, rates: [fast], duration: 1s}
EOF
spec no-scheme <<'EOF'
version: 1
name: e
variants: [{name: a, target: "127.0.0.1:18080/"}]
load: {mode: open, rates: [100], duration: 1s}
EOF
spec bad-duration <<'EOF'
version: 1
name: e
variants: [{name: a, target: "http://127.0.0.1:18080/"}]
load: {mode: open, rates: [100], duration: 10}
EOF
spec two-baselines <<'EOF'
version: 1
name: e
variants: [{name: a, target: "http://127.0.0.1:18080/"}, {name: a, target: "http://127.0.0.1:18081/"}]
baseline: b
load: {mode: closed, rates: [100], duration: 1s}
EOF
spec auto-bad <<'EOF'
version: 1
name: e
variants: [{name: a, target: "http://127.0.0.1:18080/"}, {name: b, target: "http://127.0.0.1:18081/"}]
load: {mode: open, rates: [100], duration: 1s}
runs: {auto: {min: 40, max: 10, relative: 300%}}
EOF
printf 'version: 1\nname: [\n' > "$work/specs/not-yaml.yaml"

# commands prints one command a line, its arguments separated by tabs.
commands() {
  local c
  printf 'version\t--help\n'
  for c in agent attack clean compare completion demo graph ls report run scale serve spec; do
    printf '%s\t--help\n' "$c"
  done
  printf 'spec\n'
  printf 'spec\t--markdown\n'
  for f in examples/*.yaml examples/experiments/*.yaml; do
    case "$f" in
      *kubernetes*|*kube-*) continue ;; # their dry runs read a cluster
    esac
    if grep -q '^seed:' "$f"; then
      printf 'run\t%s\t--dry-run\n' "$f"
    else
      printf 'run\t%s\t--dry-run\t--seed\t1\n' "$f"
    fi
  done
  for f in "$work"/specs/*.yaml; do
    printf 'run\t%s\t--dry-run\t--seed\t1\n' "$f"
  done
  for f in benchcmp/testdata/scale/exporter.txt benchcmp/testdata/scale/memory.csv; do
    printf 'scale\t%s\n' "$f"
    printf 'scale\t%s\t--format\tjson\n' "$f"
  done
  for fmt in text json csv markdown; do
    printf 'compare\tbenchcmp/testdata/bench/old.txt\tbenchcmp/testdata/bench/new.txt\t--format\t%s\n' "$fmt"
  done
  printf 'compare\tbenchcmp/testdata/bench/old.txt\tbenchcmp/testdata/bench/new.txt\t--holm\n'
  printf 'reprot\tx.db\n'
  printf 'attack\thttp://127.0.0.1:1/\t--warmpu\t1s\n'
  printf 'attack\t127.0.0.1:1/\t-r\t10\t-d\t1s\n'
  printf 'attack\thttp://127.0.0.1:1/\t-r\tfast\n'
  printf 'attack\thttp://127.0.0.1:1/\t-d\t-1s\n'
  printf 'run\t%s\n' "$work/missing.yaml"
  printf 'report\t%s\n' "$work/missing.db"
  if [ -n "$db" ]; then
    printf 'ls\t%s\n' "$db"
    printf 'ls\t%s\t--format\tjson\n' "$db"
    printf 'ls\t%s\t--experiment\t1\n' "$db"
    printf 'ls\t%s\t--experiment\t99\n' "$db"
    for fmt in text json csv html; do
      printf 'report\t%s\t--format\t%s\n' "$db" "$fmt"
      printf 'report\t%s\t--format\t%s\t--include-flagged\n' "$db" "$fmt"
    done
    printf 'report\t%s\t--table\toverhead\t--format\tcsv\n' "$db"
    printf 'report\t%s\t--slo\tp50<1ms,p99<10ms\n' "$db"
    printf 'compare\t%s\t%s\n' "$db" "$db"
  fi
}

if [ -z "$db" ]; then
  db="$work/results.db"
  cat > "$work/study.yaml" <<EOF
version: 1
name: cli-compare
variants:
  - name: plain
    graph: $repo/examples/graphs/chain.yaml
  - name: proxy
    graph: $repo/examples/graphs/chain-proxy.yaml
load: {mode: open, rates: [50, 100], duration: 1s}
warmup: {duration: 300ms}
runs: 3
seed: 7
EOF
  if ! "$new" run "$work/study.yaml" -o "$db" > "$work/study.out" 2>&1; then
    echo "$0: recording the study failed:" >&2
    cat "$work/study.out" >&2
    exit 2
  fi
fi

# run BIN DIR ARGS...: stdout, stderr and exit code of BIN ARGS into DIR.
run() {
  local bin=$1 dir=$2; shift 2
  (cd "$repo" && "$bin" "$@" > "$dir/stdout" 2> "$dir/stderr"; echo $? > "$dir/code")
  # What names the binary or the run's moment is not behaviour.
  sed -i -e "s|$bin|LATLAB|g" -e "s|$work|WORK|g" "$dir/stdout" "$dir/stderr"
}

n=0 differ=0
while IFS= read -r line; do
  IFS=$'\t' read -r -a args <<< "$line"
  n=$((n + 1))
  mkdir -p "$work/old/$n" "$work/new/$n"
  run "$old" "$work/old/$n" "${args[@]}"
  run "$new" "$work/new/$n" "${args[@]}"
  if ! diff -r "$work/old/$n" "$work/new/$n" > "$work/diff" 2>&1; then
    differ=$((differ + 1))
    echo "differs: latlab ${args[*]//$work/WORK}"
    sed 's/^/  /' "$work/diff" | head -40
  fi
done < <(commands)

echo "$n commands, $differ differ (stdout, stderr and exit code of each; database $(basename "$db"))"
[ "$differ" -eq 0 ]
