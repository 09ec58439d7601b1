#!/usr/bin/env bash
# test/kube/down.sh stops the test cluster that up.sh started in DIR:
#
#   test/kube/down.sh DIR
#   test/kube/down.sh --after PID DIR    waits for process PID to end first
#                                        (up.sh --owner runs it so)
#
# The pod runner goes first, with SIGTERM: it stops every pod (SIGTERM,
# then SIGKILL to the process group after at most 5 s) and removes their
# network namespaces, veths, routes, ClusterIPs and mount points. Then
# kube-controller-manager, kube-apiserver and etcd, each given 20 s after
# SIGTERM before SIGKILL. Last, "podrunner --cleanup" removes whatever a
# runner that did not stop cleanly left of the cluster's slot. DIR itself,
# with its logs, stays.
#
# Running it again, or on a DIR where nothing runs, does nothing. Exit
# status 0, also when something had to be killed (it says so on stderr);
# 2 on a usage error.
set -uo pipefail

after=""
if [ "${1:-}" = --after ]; then
  after=${2:-}
  [[ $after =~ ^[1-9][0-9]*$ ]] || { echo "down.sh: --after takes a pid" >&2; exit 2; }
  shift 2
fi
[ $# = 1 ] || { echo "usage: down.sh [--after PID] DIR" >&2; exit 2; }
[ -d "$1" ] || exit 0
dir=$(cd "$1" && pwd)
pids=$dir/pids

# alive PID: the process exists and is not a zombie.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
# ours PID WORD: PID is alive and WORD is in its command line, so it is
# not another process that reuses a recorded pid.
ours() {
  alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"
}

if [ -n "$after" ]; then
  while alive "$after"; do sleep 1; done
  echo "down.sh: process $after ended: stopping the cluster in $dir" >&2
fi

# stop NAME WORD GRACE: SIGTERM to NAME's recorded process, SIGKILL after
# GRACE seconds.
stop() {
  local f=$pids/$1 pid i
  [ -e "$f" ] || return 0
  pid=$(cat "$f")
  [ "$pid" != $$ ] || return 0 # the watchdog that runs this script
  if ours "$pid" "$2"; then
    local t0=$SECONDS
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < $3 * 10; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "down.sh: $1 (pid $pid) still runs $3 s after SIGTERM: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null
      for ((i = 0; i < 50; i++)); do
        alive "$pid" || break
        sleep 0.1
      done
    fi
    [ $((SECONDS - t0)) -lt 5 ] || echo "down.sh: $1 took $((SECONDS - t0)) s to stop" >&2
  fi
  rm -f "$f"
}

stop watchdog down.sh 5
stop podrunner podrunner 60
stop kube-controller-manager kube-controller-manager 20
stop kube-apiserver kube-apiserver 20
stop etcd etcd 20

runner=$(cat "$dir/runner" 2>/dev/null || true)
if [ -n "$runner" ] && [ -x "$runner" ]; then
  "$runner" --dir "$dir" --cleanup >>"$dir/logs/cleanup.log" 2>&1 ||
    echo "down.sh: podrunner --cleanup failed; see $dir/logs/cleanup.log" >&2
fi
rm -f "$pids/watchdog"
exit 0
