#!/usr/bin/env bash
# Builds Prometheus's own tools from the Go module proxy with this machine's Go toolchain, once per machine, into a
# cache directory outside the repository: `promtool` (the delivery tests check and unit-test the shipped alert rules
# and the dashboard's PromQL with it) and, on request, `prometheus` itself. The version is pinned here and in
# prometheus-module/go.mod + go.sum and nowhere else; the build is reproducible (-trimpath, no cgo, no VCS stamping,
# fixed build date and user), so two machines produce the same binaries. A first build takes minutes (module downloads
# included), prometheus some more.
#
# Usage: build-promtool.sh [promtool] [prometheus]    (default: promtool)
#        build-promtool.sh --print-dir
#   Prints the path of each requested binary on stdout, in the order asked (so the last line is the last one asked
#   for); progress goes to stderr.
#   OPERATORS_PROMETHEUS_CACHE  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-prometheus)
set -euo pipefail

# renovate: datasource=github-releases depName=prometheus/prometheus
PROMETHEUS_VERSION=3.15.1
# renovate: datasource=go depName=github.com/prometheus/prometheus
MODULE_VERSION=v0.315.1   # Prometheus 3.x publishes its Go module as v0.3<minor>.<patch>: 3.15.1 is v0.315.1
BUILD_DATE=20260101-00:00:00

cache_root="${OPERATORS_PROMETHEUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-prometheus}"
# Changing how the binaries are built (tags, flags) must change this directory too, or machines keep their old build.
out="$cache_root/v$PROMETHEUS_VERSION"
me="build-promtool.sh"

if [[ "${1:-}" == "--print-dir" ]]; then echo "$out"; exit 0; fi

commands=("$@")
[[ ${#commands[@]} -gt 0 ]] || commands=(promtool)
for c in "${commands[@]}"; do
  case "$c" in
    promtool | prometheus) ;;
    *) echo "$me: unknown command '$c'; can build: promtool, prometheus" >&2; exit 2 ;;
  esac
done

print_paths() { for c in "${commands[@]}"; do echo "$out/$c"; done; }
all_built() { for c in "${commands[@]}"; do [[ -x "$out/$c" ]] || return 1; done; }
if all_built; then print_paths; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  echo "$me: ${commands[*]} of Prometheus $PROMETHEUS_VERSION must be built once on this machine, and that needs Go >= 1.26 (https://go.dev/dl)." >&2
  exit 1
fi

scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$scripts/../../../tools/pinned-go-build.sh"
mkdir -p "$out"
take_build_lock "$cache_root/.build.lock" "$me" "Prometheus $PROMETHEUS_VERSION"
if all_built; then print_paths; exit 0; fi

module="$scripts/prometheus-module"
use_pinned_modules
# What the upstream release build (.promu.yml) stamps, so `promtool --version` names the real version. The module
# version identifies the source exactly (its hash is in go.sum), so it stands in for the git revision.
ldflags="-s -w"
ldflags+=" -X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION"
ldflags+=" -X github.com/prometheus/common/version.Revision=$MODULE_VERSION"
ldflags+=" -X github.com/prometheus/common/version.Branch=release-${PROMETHEUS_VERSION%.*}"
ldflags+=" -X github.com/prometheus/common/version.BuildUser=operators@build-promtool.sh"
ldflags+=" -X github.com/prometheus/common/version.BuildDate=$BUILD_DATE"

# Service discovery: promtool only checks and unit-tests rules, so it gets none of the optional mechanisms (the cloud
# SDKs are most of the compile time); prometheus keeps Kubernetes', to find the operators' pods as a ServiceMonitor
# does; static_configs and file_sd_configs are always there. No embedded web UI either (tag builtinassets): that needs
# a JavaScript build. Without it prometheus looks for the UI's files beside its source, which are not there, so its
# pages answer 500; the HTTP API, scraping and rule evaluation work as usual.
tags_for() {
  case "$1" in
    promtool) echo remove_all_sd ;;
    prometheus) echo remove_all_sd,enable_kubernetes_sd ;;
  esac
}

builder=""
trap '[[ -n "$builder" ]] && kill "$builder" 2>/dev/null; rm -f "$out"/.*.tmp' EXIT

for c in "${commands[@]}"; do
  [[ -x "$out/$c" ]] && continue
  echo "$me: go build $c of Prometheus $PROMETHEUS_VERSION (github.com/prometheus/prometheus@$MODULE_VERSION, tags $(tags_for "$c")) into $out; once per machine, minutes" >&2
  start=$SECONDS
  # nice: this machine runs other builds and tests; the first build here only has to finish, not win.
  (cd "$module" && exec nice -n 10 go build -trimpath -tags "$(tags_for "$c")" -ldflags "$ldflags" -o "$out/.$c.tmp" "github.com/prometheus/prometheus/cmd/$c") &
  builder=$!
  next=$((start + 10))
  while kill -0 "$builder" 2>/dev/null; do
    sleep 1
    if (( SECONDS >= next )) && kill -0 "$builder" 2>/dev/null; then
      echo "$me: go build $c: $((SECONDS - start)) s so far" >&2
      next=$((next + 10))
    fi
  done
  if ! wait "$builder"; then
    builder=""
    echo "$me: go build $c failed after $((SECONDS - start)) s" >&2
    exit 1
  fi
  builder=""
  mv "$out/.$c.tmp" "$out/$c"
  echo "$me: built $out/$c in $((SECONDS - start)) s: $("$out/$c" --version 2>&1 | head -n 1)" >&2
done

print_paths
