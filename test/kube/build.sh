#!/usr/bin/env bash
# test/kube/build.sh builds kube-apiserver and kube-controller-manager of one
# Kubernetes version from the Go module proxy, or reuses the ones a cache
# directory already holds, and checks that etcd is installed (Debian's
# etcd-server). It prints the directory that holds the two binaries.
#
#   test/kube/build.sh [--cache DIR] [--version V] [--jobs N] [--cached]
#
#   --cache DIR    where builds are kept, one directory per version
#                  (default $LATLAB_KUBE_CACHE, else ~/.cache/latlab/kube)
#   --version V    the Kubernetes version (default 1.34.2): k8s.io/kubernetes
#                  vV, every k8s.io staging module at v0.MINOR.PATCH
#   --jobs N       parallel compile jobs (go build -p; default: Go's)
#   --cached       print the directory only if the cache holds the build;
#                  never build (exit 4 when it does not)
#
# Kubernetes' own go.mod points its staging modules (k8s.io/api,
# k8s.io/apiserver, ...) at directories of its repository, so a module
# that requires it builds only with each of them replaced by its published
# version: the build writes such a module in DIR/vV/src, its replace lines
# read from the go.mod the proxy serves, and builds the two commands there
# with their version stamped as the release's: 5 minutes (a 2-CPU machine
# with the module proxy at hand) to 15 (the same, busy), about 100 MB per
# binary; a fraction of a second from the cache.
#
# Exit status: 0 with the directory printed; 2 on a usage error; 3 when
# etcd is missing (its install command is printed); 4 with --cached and no
# build in the cache; 1 when the build fails.
set -euo pipefail

version=1.34.2
cache=${LATLAB_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latlab/kube}
jobs=""
cached=0

die() { printf 'build.sh: %s\n' "$*" >&2; exit "${2:-1}"; }
note() { printf '%s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=${2:?--cache needs a directory}; shift 2 ;;
    --version) version=${2:?--version needs a version}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --cached) cached=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" 2 ;;
  esac
done
[[ $version =~ ^1\.([0-9]+)\.([0-9]+)$ ]] || die "--version wants 1.MINOR.PATCH, not $version" 2
minor=${BASH_REMATCH[1]}
staging="v0.$minor.${BASH_REMATCH[2]}"
[ -z "$jobs" ] || [[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive number, not $jobs" 2

command -v etcd >/dev/null || [ -x /usr/bin/etcd ] ||
  die "etcd is not installed: apt-get install etcd-server (Debian), or put etcd on PATH" 3

GO=${GO:-go}
command -v "$GO" >/dev/null || die "go is required ($GO not found)"
dir=$cache/v$version
bin=$dir/bin
cmds=(kube-apiserver kube-controller-manager)

# built: every binary is there and says it is this version.
built() {
  local c
  for c in "${cmds[@]}"; do
    [ -x "$bin/$c" ] || return 1
    "$bin/$c" --version 2>/dev/null | grep -qx "Kubernetes v$version" || return 1
  done
}
if built; then
  note "kube $version: reusing $bin"
  echo "$bin"
  exit 0
fi
[ "$cached" = 0 ] || die "kube $version is not built in $cache: run test/kube/build.sh" 4

start=$(date +%s)
mkdir -p "$dir/src" "$bin"
cd "$dir/src"
export GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-local}
note "kube $version: reading k8s.io/kubernetes' go.mod from the module proxy"
gomod=$("$GO" mod download -json "k8s.io/kubernetes@v$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
[ -s "$gomod" ] || die "no go.mod for k8s.io/kubernetes@v$version from the module proxy"
# Its staging modules: the replace lines that point into ./staging.
mapfile -t mods < <(sed -n 's|^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/.*|\1|p' "$gomod" | sort -u)
[ ${#mods[@]} -gt 0 ] || die "k8s.io/kubernetes@v$version's go.mod names no staging modules"
goversion=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$gomod")
{
  echo "// Written by test/kube/build.sh: builds Kubernetes v$version's commands."
  echo "module latlab.test/kubebuild"
  echo
  echo "go ${goversion:-1.24}"
  echo
  echo "require k8s.io/kubernetes v$version"
  echo
  echo "replace ("
  for m in "${mods[@]}"; do echo "	$m => $m $staging"; done
  echo ")"
} >go.mod
rm -f go.sum

pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=v$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
note "kube $version: building ${cmds[*]} (${#mods[@]} staging modules at $staging)"
paths=()
for c in "${cmds[@]}"; do paths+=("k8s.io/kubernetes/cmd/$c"); done
"$GO" build ${jobs:+-p "$jobs"} -trimpath -ldflags "$ldflags" -o "$bin/" "${paths[@]}" ||
  die "go build of Kubernetes v$version failed"
built || die "the built commands do not report Kubernetes v$version"
note "kube $version: built in $(( $(date +%s) - start )) s into $bin"
echo "$bin"
