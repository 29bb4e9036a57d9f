#!/usr/bin/env bash
# Builds Helm's command line (helm.sh/helm/v4) from the Go module proxy with this machine's Go toolchain, once per
# machine, into a cache directory outside the repository keyed by version. The release tests run it on the chart that
# `npm run release` generates: helm lint, helm template against the kustomize build, helm install, upgrade and
# rollback against a real API server. The version is pinned here and in helm-module/go.mod + go.sum; the build is
# reproducible (-trimpath, no cgo, no VCS stamping). Progress goes to stderr every 15 s (tools/progress.sh); the last
# line on stdout is the path of the program.
#
# Usage: build-helm.sh [--print-path]
#   OPERATORS_HELM_CACHE  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-helm)
set -euo pipefail

HELM_VERSION=v4.3.1

cache_root="${OPERATORS_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-helm}"
# Changing how the program is built (flags, the module) must change this directory too, or machines keep their old build.
out="$cache_root/$HELM_VERSION"
me="release: build-helm.sh"

if [[ "${1:-}" == "--print-path" ]]; then echo "$out/helm"; exit 0; fi
if [[ -x "$out/helm" ]]; then echo "$out/helm"; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  echo "$me: helm $HELM_VERSION must be built once on this machine for the release tests, and that needs Go >= 1.26 (https://go.dev/dl)." >&2
  exit 1
fi

scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$scripts/../../../tools/progress.sh"
source "$scripts/../../../tools/pinned-go-build.sh"

take_build_lock "$cache_root/.build.lock" "$me" "helm $HELM_VERSION"
if [[ -x "$out/helm" ]]; then echo "$out/helm"; exit 0; fi

building="$cache_root/.$HELM_VERSION.tmp"
log="$(mktemp "${TMPDIR:-/tmp}/helm-build.XXXXXX.log")"
trap 'rm -rf "$log" "$building"' EXIT
rm -rf "$building"
mkdir -p "$building"

use_pinned_modules
# What Helm's Makefile stamps into a release build, so `helm version` names the version rather than "(devel)".
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION"

# nice: this machine runs other builds and tests; the first build here only has to finish, not win.
with_progress "$me: go build helm (helm.sh/helm/v4@$HELM_VERSION) into $out, once per machine (a few minutes)" "$log" \
  bash -c 'cd "$1" && nice -n 10 go build -trimpath -ldflags "$2" -o "$3/helm" helm.sh/helm/v4/cmd/helm' \
  _ "$scripts/helm-module" "$ldflags" "$building"
if [[ ! -x "$building/helm" ]]; then echo "$me: the build finished but wrote no helm; see the log above" >&2; exit 1; fi
rm -rf "$out"
mv "$building" "$out"
echo "$me: built $out/helm ($("$out/helm" version --short 2>&1 | head -n 1))" >&2
echo "$out/helm"
