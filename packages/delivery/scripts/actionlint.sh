#!/usr/bin/env bash
# Prints the path of a pinned actionlint, building it once per machine with Go into testkit's cache directory.
set -euo pipefail
# renovate: datasource=go depName=github.com/rhysd/actionlint
ACTIONLINT_VERSION=v1.7.7
bin="${TESTKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-testkit}/bin/actionlint-$ACTIONLINT_VERSION"
if [[ ! -x "$bin/actionlint" ]]; then
  command -v go >/dev/null 2>&1 || { echo "actionlint.sh: Go is needed once to build actionlint $ACTIONLINT_VERSION" >&2; exit 1; }
  mkdir -p "$bin"
  GOBIN="$bin" GOFLAGS=-mod=mod CGO_ENABLED=0 go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >&2
fi
echo "$bin/actionlint"
