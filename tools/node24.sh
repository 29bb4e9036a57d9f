#!/usr/bin/env bash
# Runs a command with the project's Node.js (the version in .nvmrc) first on PATH, after making sure the
# workspace's dependencies are installed. Machines often carry an older Node (this project needs >= 24:
# @kubernetes/client-node 2.x and undici 8 require >= 22.19), so on first use the exact version is installed
# from the npm registry's `node` package into a cache outside the repository. Nobody has to do that by hand.
#
#   tools/node24.sh <command> [args...]
#   OPERATORS_NODE_CACHE  where Node is kept (default: $XDG_CACHE_HOME or ~/.cache, then /operators-node)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want="$(tr -d ' \n' < "$repo/.nvmrc")"

if [[ "$(node --version 2>/dev/null || true)" != "v$want" ]]; then
  cache="${OPERATORS_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-node}/$want"
  bin="$cache/node_modules/node/bin"
  if [[ ! -x "$bin/node" ]]; then
    command -v npm >/dev/null 2>&1 || { echo "node24.sh: npm is needed once to fetch Node.js $want; install any Node.js >= 18 with npm first" >&2; exit 1; }
    mkdir -p "$cache"
    # Parallel first uses (nx runs several tasks at once) wait for one install instead of racing it.
    exec 8<"$cache"
    flock 8
    if [[ ! -x "$bin/node" ]]; then
      echo "node24.sh: installing Node.js $want into $cache (once per machine)" >&2
      npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node@$want" >&2
      [[ -x "$bin/node" ]] || { echo "node24.sh: installing node@$want did not produce $bin/node" >&2; exit 1; }
    fi
    exec 8<&-
  fi
  export PATH="$bin:$PATH"
fi

# Install (or re-install after a lockfile change) so that a fresh clone needs no separate `npm ci`.
# npm ci first deletes node_modules: two at once (parallel first uses) delete each other's work and both fail with
# ENOTEMPTY, so they take turns on a lock of the lockfile, and the second finds the install done.
stamp="$repo/node_modules/.package-lock.json"
if [[ ! -f "$stamp" || "$repo/package-lock.json" -nt "$stamp" ]]; then
  exec 9<"$repo/package-lock.json"
  flock 9
  if [[ ! -f "$stamp" || "$repo/package-lock.json" -nt "$stamp" ]]; then
    echo "node24.sh: installing workspace dependencies (npm ci)" >&2
    (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
  exec 9<&-
fi
export PATH="$repo/node_modules/.bin:$PATH"
exec "$@"
