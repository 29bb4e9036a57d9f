#!/usr/bin/env bash
# The cold-start check: what a newcomer's first `npm test` meets. A clean clone of this repository's HEAD, run with
# every build cache pointed at empty directories (XDG_CACHE_HOME: Node 24, the control plane, SeaweedFS, prometheus,
# promtool, the v4 SDK client; GOCACHE and GOMODCACHE: Go's; npm's cache), twice: the first run is a fresh machine's,
# the second the same machine's next run. Prints both times. Run it whenever what is provisioned changes
# (packages/testkit/src/provisioned-tools.ts, the build scripts, .ci/run) and put the figures in the README.
#
#   tools/cold-start.sh [--ci] [--once] [--keep]
#     --ci    run .ci/run (apt packages, images, provisioning, npm test, kind where a node image exists) instead of npm test
#     --once  only the cold run
#     --keep  keep the clone and the caches (several GiB) under the printed directory
# Docker's images and build cache are the engine's, not in these directories: a machine that built the images before
# keeps them (`docker system prune -a` first for a check of those too).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command=(npm test)
runs=2
keep=""
for arg in "$@"; do
  case "$arg" in
    --ci) command=(bash .ci/run) ;;
    --once) runs=1 ;;
    --keep) keep=1 ;;
    *) echo "usage: tools/cold-start.sh [--ci] [--once] [--keep]" >&2; exit 2 ;;
  esac
done

work="$(mktemp -d "${TMPDIR:-/tmp}/cold-start.XXXXXX")"
if [[ -z "$keep" ]]; then trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT; fi
git clone -q "$repo" "$work/clone"
mkdir -p "$work/xdg-cache" "$work/go-build" "$work/go-mod" "$work/npm-cache"
export XDG_CACHE_HOME="$work/xdg-cache" GOCACHE="$work/go-build" GOMODCACHE="$work/go-mod" npm_config_cache="$work/npm-cache"
echo "cold-start: $(git -C "$work/clone" log --oneline -1) in $work/clone, every cache empty under $work; running: ${command[*]}" >&2

times=()
for run in $(seq "$runs"); do
  label=$([[ $run == 1 ]] && echo "first run (empty caches)" || echo "second run (warm caches)")
  echo "cold-start: $label ..." >&2
  start=$SECONDS
  status=0
  (cd "$work/clone" && CI=true "${command[@]}") 2>&1 | tee "$work/run-$run.log" || status=$?
  times+=("$label: $((SECONDS - start)) s, exit $status")
  if [[ $status -ne 0 ]]; then keep=1; trap - EXIT; echo "cold-start: kept $work for a look" >&2; break; fi
done
printf 'cold-start: %s\n' "${times[@]}"
[[ $status -eq 0 ]]
