#!/usr/bin/env bash
# Builds a command line the release needs from the Go module proxy with this machine's Go toolchain, once per machine,
# into a cache directory outside the repository keyed by tool and version:
#   helm    helm.sh/helm/v4: the chart tests (helm lint, template, install, upgrade, rollback, uninstall)
#   cosign  github.com/sigstore/cosign/v3: signing the release's images and install.yaml, and verifying them
#   registry  distribution's OCI registry (the one kind/e2e.sh serves stand-ins from, same pin and module): the
#           loopback registry the signing tests push to
# Each version is pinned here and in <tool>-module/go.mod + go.sum (registry: kind's, in kind/node-image/versions.env); the builds are reproducible (-trimpath, no cgo, no
# VCS stamping) and stamp the version the way each project's own release does, so `helm version` and `cosign version`
# name it. Progress goes to stderr every 15 s (tools/progress.sh); the last line on stdout is the program's path.
#
# Usage: build-go-tool.sh helm|cosign|registry [--print-path]
#        build-go-tool.sh TOOL TOOL...   (each in turn)
#   OPERATORS_RELEASE_TOOLS_CACHE  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-release-tools)
set -euo pipefail

# renovate: datasource=go depName=helm.sh/helm/v4
HELM_VERSION=v4.3.1
# renovate: datasource=go depName=github.com/sigstore/cosign/v3
COSIGN_VERSION=v3.1.3

# npm run provision asks a script for all of its missing tools at once (build-go-tool.sh helm cosign registry): each is
# built in turn, and its path printed.
if [[ $# -gt 1 && "$2" != "--print-path" ]]; then
  for one in "$@"; do bash "${BASH_SOURCE[0]}" "$one"; done
  exit 0
fi

tool="${1:-}"
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$scripts/$tool-module"
case "$tool" in
  helm)
    version=$HELM_VERSION package=helm.sh/helm/v4/cmd/helm
    ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$version" ;;
  cosign)
    version=$COSIGN_VERSION package=github.com/sigstore/cosign/v3/cmd/cosign
    ldflags="-s -w -X sigs.k8s.io/release-utils/version.gitVersion=$version" ;;
  registry)
    # shellcheck source=../../../kind/node-image/versions.env
    source "$scripts/../../../kind/node-image/versions.env"
    version="$REGISTRY_VERSION" package=github.com/distribution/distribution/v3/cmd/registry module="$scripts/../../../kind/node-image/modules/registry"
    ldflags="-s -w -X github.com/distribution/distribution/v3/version.version=$version" ;;
  *) echo "usage: build-go-tool.sh helm|cosign|registry [--print-path]" >&2; exit 2 ;;
esac

cache_root="${OPERATORS_RELEASE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-release-tools}"
# Changing how a program is built (flags, the module) must change this directory too, or machines keep their old build.
out="$cache_root/$tool-$version"
me="release: build-go-tool.sh $tool"

if [[ "${2:-}" == "--print-path" ]]; then echo "$out/$tool"; exit 0; fi
if [[ -x "$out/$tool" ]]; then echo "$out/$tool"; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  echo "$me: $tool $version must be built once on this machine for the release tests, and that needs Go >= 1.26 (https://go.dev/dl)." >&2
  exit 1
fi

source "$scripts/../../../tools/progress.sh"
source "$scripts/../../../tools/pinned-go-build.sh"

take_build_lock "$cache_root/.$tool.lock" "$me" "$tool $version"
if [[ -x "$out/$tool" ]]; then echo "$out/$tool"; exit 0; fi

building="$cache_root/.$tool-$version.tmp"
log="$(mktemp "${TMPDIR:-/tmp}/$tool-build.XXXXXX.log")"
trap 'rm -rf "$log" "$building"' EXIT
rm -rf "$building"
mkdir -p "$building"

use_pinned_modules
# nice: this machine runs other builds and tests; the first build here only has to finish, not win.
with_progress "$me: go build $tool ($package@$version) into $out, once per machine (several minutes)" "$log" \
  bash -c 'cd "$1" && nice -n 10 go build -trimpath -ldflags "$2" -o "$3/$4" "$5"' \
  _ "$module" "$ldflags" "$building" "$tool" "$package"
if [[ ! -x "$building/$tool" ]]; then echo "$me: the build finished but wrote no $tool; see the log above" >&2; exit 1; fi
rm -rf "$out"
mv "$building" "$out"
echo "$me: built $out/$tool ($("$out/$tool" version 2>&1 | grep -m1 -iE 'v[0-9]' || true))" >&2
echo "$out/$tool"
