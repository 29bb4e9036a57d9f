#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (the S3-compatible object store the postgresql-operator's S3 backup store is tested against)
# from the Go module proxy with this machine's Go toolchain, once per machine, into a cache directory outside the
# repository keyed by version. The version is pinned in seaweedfs-module/go.mod + go.sum and here; the build is
# reproducible (-trimpath, no cgo, no VCS stamping), so two machines produce the same binary. Progress goes to stderr
# every 15 s (tools/progress.sh); the last line on stdout is the binary's path.
#
# Usage: build-seaweedfs.sh [--print-path]
#   TESTKIT_CACHE_DIR   overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-testkit)
set -euo pipefail

# A pseudo-version: the module proxy serves SeaweedFS by commit (its release tags are not Go module versions).
# renovate: datasource=go depName=github.com/seaweedfs/seaweedfs
SEAWEEDFS_MODULE_VERSION=v0.0.0-20261109003541-7506e5f91cd6
SEAWEEDFS_COMMIT=7506e5f91cd6

cache_root="${TESTKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-testkit}"
out="$cache_root/bin/seaweedfs-$SEAWEEDFS_MODULE_VERSION"
binary="$out/weed"
me="testkit: build-seaweedfs.sh"

if [[ "${1:-}" == "--print-path" ]]; then echo "$binary"; exit 0; fi
if [[ -x "$binary" ]]; then echo "$binary"; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
$me: SeaweedFS (weed, module $SEAWEEDFS_MODULE_VERSION) must be built once on this machine for the S3 tests, and that
needs Go >= 1.26 (https://go.dev/dl). Install Go and run this script again, or put a weed binary of that version at
  $binary
MSG
  exit 1
fi

scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# go build says nothing for minutes: with_progress prints the elapsed time every 15 s.
source "$scripts/../../../tools/progress.sh"
source "$scripts/../../../tools/pinned-go-build.sh"

mkdir -p "$out"
take_build_lock "$cache_root/.seaweedfs-build.lock" "$me" SeaweedFS
if [[ -x "$binary" ]]; then echo "$binary"; exit 0; fi

log="$(mktemp "${TMPDIR:-/tmp}/seaweedfs-build.XXXXXX.log")"
trap 'rm -f "$log" "$binary.tmp"' EXIT

use_pinned_modules
ldflags="-s -w -X github.com/seaweedfs/seaweedfs/weed/util/version.COMMIT=$SEAWEEDFS_COMMIT"

# nice: this machine runs other builds and tests; the first build here only has to finish, not win.
with_progress "$me: go build weed (github.com/seaweedfs/seaweedfs@$SEAWEEDFS_MODULE_VERSION) into $out, once per machine (about 30 min on two busy cores)" "$log" \
  bash -c 'cd "$1" && nice -n 10 go build -trimpath -ldflags "$2" -o "$3" github.com/seaweedfs/seaweedfs/weed' \
  _ "$scripts/seaweedfs-module" "$ldflags" "$binary.tmp"
if [[ ! -x "$binary.tmp" ]]; then echo "$me: the build finished but wrote no executable; see the log above" >&2; exit 1; fi
mv "$binary.tmp" "$binary"
echo "$me: built $binary ($("$binary" version 2>&1 | head -n 1))" >&2
echo "$binary"
