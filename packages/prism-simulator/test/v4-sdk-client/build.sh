#!/usr/bin/env bash
# Builds the simulator's Go contract-test programs once per version of their sources, into a cache directory outside
# the repository, and prints the path of each binary (the v4 SDK client's last, which is what `npm run provision`
# takes this script's output for):
#
#   v4-sdk-client       this directory: Nutanix's official v4.2 SDKs driving the simulator (v4-sdk-client.test.ts)
#   capx-v4-sequence    ../capx-v4-sequence: CAPX v1.10.3's machine create and delete sequence through prism-go-client's
#                       converged v4 client (capx-v4-sequence.test.ts)
#
# Both share ../sdk-decoding. The first build compiles the SDKs' large model packages (minutes on a small machine):
# tools/progress.sh reports on it every 15 s so that it never looks stuck. `npm run provision` runs it before the
# tests; the tests only look the binaries up (--print-path).
#
#   build.sh [--print-path [v4-sdk-client|capx-v4-sequence]]
#   PRISM_SIM_CACHE_DIR  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /prism-simulator)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$(dirname "$here")"
cache_root="${PRISM_SIM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/prism-simulator}"
programs=(capx-v4-sequence v4-sdk-client)

# The binary of program $1: named by a hash of its sources, the shared package's and any module it replaces in-tree.
binary_of() {
  local dir="$tests/$1"
  local key
  key="$(cd "$tests" && find "$1" sdk-decoding -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)"
  echo "$cache_root/$1-$key"
}

if [[ "${1:-}" == "--print-path" ]]; then binary_of "${2:-v4-sdk-client}"; exit 0; fi
missing=()
for program in "${programs[@]}"; do [[ -x "$(binary_of "$program")" ]] || missing+=("$program"); done
if [[ ${#missing[@]} -eq 0 ]]; then for program in "${programs[@]}"; do binary_of "$program"; done; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "prism-simulator: the Go contract tests need a Go toolchain (>= 1.26, https://go.dev/dl) to build ${missing[*]}" >&2
  exit 1
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
# Two test runs starting at once must not build twice or run a half-written binary.
flock 9

# -mod=readonly: every module's hash must be in the committed go.sum, so what is built is what was pinned.
# The checksum database is not needed for that (and does not answer for every version the proxy serves).
export GOFLAGS="-mod=readonly -buildvcs=false" GOSUMDB=off CGO_ENABLED=0
source "$here/../../../../tools/progress.sh"
for program in "${programs[@]}"; do
  binary="$(binary_of "$program")"
  if [[ ! -x "$binary" ]]; then
    log="$(mktemp "${TMPDIR:-/tmp}/$program-build.XXXXXX")"
    # -p 1: one compile at a time, so the build shares a small machine politely.
    (cd "$tests/$program" && with_progress "prism-simulator: go build of $program" "$log" go build -p 1 -trimpath -o "$binary.tmp" .)
    mv "$binary.tmp" "$binary"
    rm -f "$log"
  fi
  echo "$binary"
done
