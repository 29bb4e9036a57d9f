#!/usr/bin/env bash
# Builds the official-v4-SDK client (main.go) once per version of its sources, into a cache directory outside the
# repository, and prints the binary's path. The first build compiles the SDKs' large model packages (a minute or two
# on a small machine): tools/progress.sh reports on it every 15 s so that it never looks stuck. `npm run provision`
# runs it before the tests; the test only looks the binary up (--print-path).
#
#   build.sh [--print-path]
#   PRISM_SIM_CACHE_DIR  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /prism-simulator)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
key="$(cat "$here/go.mod" "$here/go.sum" "$here"/*.go | sha256sum | cut -c1-16)"
cache_root="${PRISM_SIM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/prism-simulator}"
binary="$cache_root/v4-sdk-client-$key"
if [[ "${1:-}" == "--print-path" ]]; then echo "$binary"; exit 0; fi
if [[ -x "$binary" ]]; then echo "$binary"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "prism-simulator: the v4 SDK test needs a Go toolchain (>= 1.26, https://go.dev/dl) to build $here" >&2
  exit 1
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
# Two test runs starting at once must not build twice or run a half-written binary.
flock 9
if [[ -x "$binary" ]]; then echo "$binary"; exit 0; fi

# -mod=readonly: every module's hash must be in the committed go.sum, so what is built is what was pinned.
# The checksum database is not needed for that (and does not answer for every version the proxy serves).
export GOFLAGS="-mod=readonly -buildvcs=false" GOSUMDB=off CGO_ENABLED=0
source "$here/../../../../tools/progress.sh"
log="$(mktemp "${TMPDIR:-/tmp}/v4-sdk-client-build.XXXXXX")"
# -p 1: one compile at a time, so the build shares a small machine politely.
(cd "$here" && with_progress "prism-simulator: go build of the v4 SDK client" "$log" go build -p 1 -trimpath -o "$binary.tmp" .)
mv "$binary.tmp" "$binary"
rm -f "$log"
echo "$binary"
