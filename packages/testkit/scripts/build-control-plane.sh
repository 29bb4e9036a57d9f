#!/usr/bin/env bash
# Builds the control-plane binaries testkit runs (kube-apiserver, kube-controller-manager, kubectl, etcd)
# from the Go module proxy with this machine's Go toolchain, once per machine, into a cache directory
# outside the repository. Versions are pinned here and nowhere else; the build is reproducible
# (-trimpath, fixed build date, no VCS stamping), so two machines produce the same binaries.
#
# Usage: build-control-plane.sh [--print-dir]
#   TESTKIT_CACHE_DIR  overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-testkit)
set -euo pipefail

KUBERNETES_VERSION=v1.36.5
STAGING_VERSION=v0.36.5   # k8s.io/* staging modules are tagged v0.<minor>.<patch> alongside v1.<minor>.<patch>
ETCD_VERSION=v3.6.16
BUILD_DATE=2026-01-01T00:00:00Z
# Bumped whenever patches/ changes, so a machine's cache never mixes old and new builds.
TESTKIT_PATCH_LEVEL=1

cache_root="${TESTKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/operators-testkit}"
out="$cache_root/bin/k8s-${KUBERNETES_VERSION}-testkit.${TESTKIT_PATCH_LEVEL}-etcd-${ETCD_VERSION}"

if [[ "${1:-}" == "--print-dir" ]]; then echo "$out"; exit 0; fi

binaries=(kube-apiserver kube-controller-manager kubectl etcd)
missing=()
for b in "${binaries[@]}"; do [[ -x "$out/$b" ]] || missing+=("$b"); done
if [[ ${#missing[@]} -eq 0 ]]; then echo "$out"; exit 0; fi

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
testkit: the control-plane binaries are missing (${missing[*]}) and there is no Go toolchain to build them.
  Either install Go >= 1.26 (https://go.dev/dl) and run this script again,
  or point KUBEBUILDER_ASSETS at a directory holding kube-apiserver, kube-controller-manager, kubectl and etcd
  of Kubernetes ${KUBERNETES_VERSION} (for example from 'setup-envtest use 1.36.x').
MSG
  exit 1
fi

mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/testkit-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
lock="$cache_root/.build.lock"
exec 9>"$lock"
# Two test runs starting at once must not build twice or see half-written binaries.
flock 9
for b in "${binaries[@]}"; do [[ -x "$out/$b" ]] || { missing_after_lock=1; break; }; done
if [[ -z "${missing_after_lock:-}" ]]; then echo "$out"; exit 0; fi

echo "testkit: building Kubernetes ${KUBERNETES_VERSION} control plane and etcd ${ETCD_VERSION} (first time on this machine; takes a while)" >&2

modules="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/control-plane-modules"
# -mod=readonly: every module's hash must already be in the committed go.sum files, so what is built is
# exactly what was pinned. The checksum database does not answer for every version the proxy serves here.
export GOFLAGS="-mod=readonly -buildvcs=false"
export GOSUMDB=off
export CGO_ENABLED=0

minor="${KUBERNETES_VERSION#v1.}"; minor="${minor%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=${KUBERNETES_VERSION} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${minor}"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=${BUILD_DATE}"
done

# k8s.io/kubernetes replaces its staging modules with local paths, so `go install pkg@version` refuses it;
# the module in control-plane-modules/k8s requires it and pins each staging module to its published twin.
cp -r "$modules/k8s" "$modules/etcd" "$work/"
# The released source, verified against go.sum, plus testkit's patches (see patches/: one validation that
# would keep loopback Pod addresses out of EndpointSlices).
(
  cd "$work/k8s"
  go mod download k8s.io/kubernetes
  src="$(go list -m -f '{{.Dir}}' k8s.io/kubernetes)"
  cp -r "$src" "$work/kubernetes"
  chmod -R u+w "$work/kubernetes"
  for p in "$(dirname "$modules")"/patches/*.patch; do patch -s -p1 -d "$work/kubernetes" < "$p"; done
  go mod edit -replace "k8s.io/kubernetes=$work/kubernetes"
)
# go build says nothing for minutes: with_progress prints the elapsed time every 15 s.
source "$(dirname "${BASH_SOURCE[0]}")/../../../tools/progress.sh"
step=0
for b in kube-apiserver kube-controller-manager kubectl; do
  step=$((step + 1))
  [[ -x "$out/$b" ]] && continue
  with_progress "testkit: go build $b ($step of 4; each takes 5-12 min on two cores)" "$work/$b.log" \
    bash -c 'cd "$1/k8s" && go build -trimpath -ldflags "$2" -o "$3" "k8s.io/kubernetes/cmd/$4"' _ "$work" "$ldflags" "$out/.$b.tmp" "$b"
  mv "$out/.$b.tmp" "$out/$b"
done
if [[ ! -x "$out/etcd" ]]; then
  with_progress "testkit: go build etcd ${ETCD_VERSION} (4 of 4)" "$work/etcd.log" \
    bash -c 'cd "$1/etcd" && go build -trimpath -ldflags "-s -w" -o "$2" go.etcd.io/etcd/server/v3' _ "$work" "$out/.etcd.tmp"
  mv "$out/.etcd.tmp" "$out/etcd"
fi

echo "$out"
