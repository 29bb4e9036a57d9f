#!/usr/bin/env bash
# Builds the reference age tool, `age` and `age-keygen` (filippo.io/age), from the Go module proxy with this machine's
# Go toolchain, once per machine, into a cache directory outside the repository keyed by version. The encryption
# tests prove with them that what the operator encrypts the reference tool decrypts and the other way round, so that
# a person can always open a backup with `age -d` and no operator. The version is pinned here and in
# age-module/go.mod + go.sum; the build is reproducible (-trimpath, no cgo, no VCS stamping), so two machines produce
# the same binaries. Progress goes to stderr every 15 s (tools/progress.sh); the last line on stdout is the directory
# that holds both programs.
#
# Usage: build-age.sh [--print-dir]
#   OPERATORS_AGE_CACHE  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-age)
set -euo pipefail

# renovate: datasource=go depName=filippo.io/age
AGE_VERSION=v1.3.2

cache_root="${OPERATORS_AGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-age}"
# Changing how the programs are built (flags, the module) must change this directory too, or machines keep their old build.
out="$cache_root/$AGE_VERSION"
programs=(age age-keygen)
me="postgresql-operator: build-age.sh"

if [[ "${1:-}" == "--print-dir" ]]; then echo "$out"; exit 0; fi
all_built() { for p in "${programs[@]}"; do [[ -x "$out/$p" ]] || return 1; done; }
if all_built; then echo "$out"; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  echo "$me: age $AGE_VERSION (age and age-keygen) must be built once on this machine for the encryption tests, and that needs Go >= 1.26 (https://go.dev/dl)." >&2
  exit 1
fi

scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# go build says nothing for a while: with_progress prints the elapsed time every 15 s.
source "$scripts/../../../tools/progress.sh"
source "$scripts/../../../tools/pinned-go-build.sh"

take_build_lock "$cache_root/.build.lock" "$me" "age $AGE_VERSION"
if all_built; then echo "$out"; exit 0; fi

building="$cache_root/.$AGE_VERSION.tmp"
log="$(mktemp "${TMPDIR:-/tmp}/age-build.XXXXXX.log")"
trap 'rm -rf "$log" "$building"' EXIT
rm -rf "$building"
mkdir -p "$building"

use_pinned_modules
# Built as a dependency of age-module, the programs would report "(devel)" for `age --version`; the release stamps this.
ldflags="-s -w -X main.Version=$AGE_VERSION"

# nice: this machine runs other builds and tests; the first build here only has to finish, not win.
with_progress "$me: go build age and age-keygen (filippo.io/age@$AGE_VERSION) into $out, once per machine (under a minute)" "$log" \
  bash -c 'cd "$1" && nice -n 10 go build -trimpath -ldflags "$2" -o "$3/" filippo.io/age/cmd/age filippo.io/age/cmd/age-keygen' \
  _ "$scripts/age-module" "$ldflags" "$building"
for p in "${programs[@]}"; do
  if [[ ! -x "$building/$p" ]]; then echo "$me: the build finished but wrote no $p; see the log above" >&2; exit 1; fi
done
rm -rf "$out"
mv "$building" "$out"
echo "$me: built $out/age and $out/age-keygen (age --version: $("$out/age" --version 2>&1 | head -n 1))" >&2
echo "$out"
