#!/usr/bin/env bash
# Provides the control-plane binaries testkit runs (kube-apiserver, kube-controller-manager, kubectl, etcd), once per
# machine, in a cache directory outside the repository keyed by version:
#   - downloads the released binaries (the files setup-envtest's archives are made of) where
#     control-plane-digests.txt pins a digest for this platform and the download answers, checked against that digest;
#   - builds the rest from the Go module proxy with this machine's Go toolchain. kube-apiserver is always built: testkit
#     patches it (patches/, README "The one patch"). The build is reproducible (-trimpath, fixed build date, no VCS
#     stamping), so two machines produce the same binaries.
# Versions are pinned here (and, for downloads, in the paths of control-plane-digests.txt, checked against these).
# Every step prints what it does and, every 15 s, its elapsed time on stderr; the last line on stdout is the directory.
#
# Usage: build-control-plane.sh [--print-dir]
#   TESTKIT_CACHE_DIR                overrides the cache root (default: $XDG_CACHE_HOME or ~/.cache, then /operators-testkit)
#   TESTKIT_CONTROL_PLANE_SOURCE     auto (default): download what is pinned, build the rest; build: never download;
#                                    download: fail rather than build
#   TESTKIT_ASSETS_BASE_URL          a mirror serving the table's files at <base>/<address without https://>
#   TESTKIT_ASSETS_DIGESTS           another digest table (testkit's tests, or a version being pinned)
#   TESTKIT_BUILD_COMMAND            testkit's own tests: a command run as `CMD BINARY OUTPUT` instead of the Go build
set -euo pipefail

# renovate: datasource=github-tags depName=kubernetes/kubernetes
KUBERNETES_VERSION=v1.36.5
# renovate: datasource=go depName=k8s.io/api
STAGING_VERSION=v0.36.5   # k8s.io/* staging modules are tagged v0.<minor>.<patch> alongside v1.<minor>.<patch>
# renovate: datasource=go depName=go.etcd.io/etcd/server/v3
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

scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# go build and curl say nothing for minutes: with_progress prints the step's elapsed time every 15 s.
source "$scripts/../../../tools/progress.sh"

mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/testkit-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
exec 9>"$cache_root/.build.lock"
# Two test runs starting at once must not build twice or see half-written binaries.
if ! flock -n 9; then
  echo "testkit: another process is providing the control-plane binaries; waiting for it (lock $cache_root/.build.lock)" >&2
  flock 9
fi
missing=()
for b in "${binaries[@]}"; do [[ -x "$out/$b" ]] || missing+=("$b"); done
if [[ ${#missing[@]} -eq 0 ]]; then echo "$out"; exit 0; fi

source_mode="${TESTKIT_CONTROL_PLANE_SOURCE:-auto}"
case "$source_mode" in auto | build | download) ;; *)
  echo "testkit: TESTKIT_CONTROL_PLANE_SOURCE must be auto, build or download, not '$source_mode'" >&2; exit 1 ;;
esac
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
case "$(uname -m)" in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
platform="$os-$arch"
digests="${TESTKIT_ASSETS_DIGESTS:-$scripts/control-plane-digests.txt}"
base="${TESTKIT_ASSETS_BASE_URL:-https://}"
started=$SECONDS
step=0
steps=${#missing[@]}
echo "testkit: providing Kubernetes ${KUBERNETES_VERSION} control plane and etcd ${ETCD_VERSION} for $platform into $out (first time on this machine): ${missing[*]}" >&2

# The table's row for binary $1 on this platform, or nothing.
pinned_row() {
  [[ -f "$digests" ]] || return 0
  awk -v p="$platform" -v b="$1" '$1 !~ /^#/ && $1 == p && $2 == b { print; exit }' "$digests"
}

# download BINARY ADDRESS MEMBER ALGORITHM DIGEST: 0 = installed, 1 = no answer (fall back), 2 = refused (stop).
download() {
  local name="$1" address="$2" member="$3" algorithm="$4" digest="$5"
  local url="${base%/}/$address" file="$work/download/${address##*/}"
  mkdir -p "$work/download"
  if ! with_progress "testkit: step $step of $steps: download $name ($url)" "$work/$name.download.log" \
      curl -fsSL --connect-timeout 10 --retry 1 --speed-limit 1024 --speed-time 60 -o "$file" "$url"; then
    return 1
  fi
  local actual
  actual="$("${algorithm}sum" "$file" | cut -d' ' -f1)"
  if [[ "$actual" != "$digest" ]]; then
    cat >&2 <<MSG
testkit: REFUSED $url: its $algorithm digest is
  $actual
but $digests pins
  $digest
The file is corrupt or not the released one; nothing from it was installed. What to do:
  - run the same command again to retry the download (a transfer cut short gives a different digest);
  - if TESTKIT_ASSETS_BASE_URL points at a mirror (it is '${TESTKIT_ASSETS_BASE_URL:-unset}'), make the mirror serve
    the released file, or unset the variable;
  - or set TESTKIT_CONTROL_PLANE_SOURCE=build to build every binary from source with Go instead.
MSG
    return 2
  fi
  local binary="$file"
  if [[ "$member" != "-" ]]; then
    mkdir -p "$work/extract"
    if ! tar -xzf "$file" -C "$work/extract" "$member" 2>"$work/$name.extract.log"; then
      echo "testkit: $url matches its digest but holds no $member; the table's member column is wrong:" >&2
      cat "$work/$name.extract.log" >&2
      return 2
    fi
    binary="$work/extract/$member"
  fi
  install -m 0755 "$binary" "$out/.$name.tmp" || return 2
  mv "$out/.$name.tmp" "$out/$name" || return 2
  echo "$name: downloaded from $url ($algorithm $digest)" >>"$out/SOURCES"
}

to_build=()
downloads_answer=1
for b in "${missing[@]}"; do
  row="$(pinned_row "$b")"
  read -r _ _ address member algorithm digest <<<"${row:-- - - - - -}"
  why=""
  if [[ "$source_mode" == build ]]; then why="TESTKIT_CONTROL_PLANE_SOURCE=build"
  elif [[ "$b" == kube-apiserver ]]; then why="testkit runs it patched (README: The one patch)"
  elif [[ -z "$row" || "$digest" == "-" ]]; then why="no pinned digest for $platform in $digests"
  elif [[ "$algorithm" != sha256 && "$algorithm" != sha512 ]]; then why="unknown digest algorithm '$algorithm' in $digests"
  elif [[ "$b" == etcd && "$address" != *"$ETCD_VERSION"* ]] || [[ "$b" != etcd && "$address" != *"/$KUBERNETES_VERSION/"* ]]; then
    why="$digests pins another version than ${KUBERNETES_VERSION}/etcd ${ETCD_VERSION}; re-pin it"
  elif [[ $downloads_answer -eq 0 ]]; then why="an earlier download did not answer"
  fi
  if [[ -n "$why" ]]; then
    to_build+=("$b")
    echo "testkit: $b will be built from source: $why" >&2
    continue
  fi
  step=$((step + 1))
  status=0
  download "$b" "$address" "$member" "$algorithm" "$digest" || status=$?
  if [[ $status -eq 2 ]]; then exit 1; fi
  if [[ $status -eq 1 ]]; then
    downloads_answer=0
    step=$((step - 1)) # the build that replaces this download is a later step
    to_build+=("$b")
    echo "testkit: no answer from ${base%/}/$address; $b will be built from source" >&2
  fi
done

if [[ ${#to_build[@]} -gt 0 && "$source_mode" == download ]]; then
  echo "testkit: TESTKIT_CONTROL_PLANE_SOURCE=download, but ${to_build[*]} could not be downloaded (see above)" >&2
  exit 1
fi

if [[ ${#to_build[@]} -gt 0 && -z "${TESTKIT_BUILD_COMMAND:-}" ]]; then
  if ! command -v go >/dev/null 2>&1; then
    cat >&2 <<MSG
testkit: the control-plane binaries ${to_build[*]} are missing and there is no Go toolchain to build them.
  Either install Go >= 1.26 (https://go.dev/dl) and run this script again,
  or point KUBEBUILDER_ASSETS at a directory holding kube-apiserver, kube-controller-manager, kubectl and etcd
  of Kubernetes ${KUBERNETES_VERSION} (for example from 'setup-envtest use 1.36.x'; kube-apiserver must carry
  testkit's patch for Services to get endpoints, see packages/testkit/README.md).
MSG
    exit 1
  fi
  echo "testkit: building ${to_build[*]} from source with $(go version | cut -d' ' -f3) (takes a while)" >&2

  # -mod=readonly: every module's hash must already be in the committed go.sum files, so what is built is
  # exactly what was pinned. The checksum database does not answer for every version the proxy serves here.
  export GOFLAGS="-mod=readonly -buildvcs=false"
  export GOSUMDB=off
  export CGO_ENABLED=0

  source "$scripts/../../../tools/kubernetes-version-ldflags.sh"
  ldflags="$(kubernetes_version_ldflags "$KUBERNETES_VERSION" "$BUILD_DATE")"

  modules="$scripts/control-plane-modules"
  # k8s.io/kubernetes replaces its staging modules with local paths, so `go install pkg@version` refuses it;
  # the module in control-plane-modules/k8s requires it and pins each staging module to its published twin.
  cp -r "$modules/k8s" "$modules/etcd" "$work/"
  if [[ " ${to_build[*]} " != " etcd " ]]; then
    # The released source, verified against go.sum, plus testkit's patches (see patches/: one validation that
    # would keep loopback Pod addresses out of EndpointSlices). The replacement is a relative path: it is recorded in
    # each binary's build information, and a temporary directory's name there would make every build differ.
    with_progress "testkit: fetch and patch the Kubernetes ${KUBERNETES_VERSION} source" "$work/source.log" bash -c '
      set -euo pipefail
      cd "$1/k8s"
      go mod download k8s.io/kubernetes
      src="$(go list -m -f "{{.Dir}}" k8s.io/kubernetes)"
      cp -r "$src" "$1/kubernetes"
      chmod -R u+w "$1/kubernetes"
      for p in "$2"/patches/*.patch; do patch -s -p1 -d "$1/kubernetes" < "$p"; done
      go mod edit -replace "k8s.io/kubernetes=../kubernetes"' _ "$work" "$scripts"
  fi
fi

for b in "${to_build[@]}"; do
  step=$((step + 1))
  if [[ -n "${TESTKIT_BUILD_COMMAND:-}" ]]; then
    with_progress "testkit: step $step of $steps: build $b (TESTKIT_BUILD_COMMAND)" "$work/$b.log" \
      "$TESTKIT_BUILD_COMMAND" "$b" "$out/.$b.tmp"
  elif [[ "$b" == etcd ]]; then
    with_progress "testkit: step $step of $steps: go build etcd ${ETCD_VERSION} (about 5 min on two cores)" "$work/$b.log" \
      bash -c 'cd "$1/etcd" && go build -trimpath -ldflags "-s -w" -o "$2" go.etcd.io/etcd/server/v3' _ "$work" "$out/.$b.tmp"
  else
    # Minutes measured on two busy cores; the first Kubernetes binary compiles what they all share.
    case "$b" in kube-apiserver) minutes=20 ;; kube-controller-manager) minutes=9 ;; *) minutes=3 ;; esac
    with_progress "testkit: step $step of $steps: go build $b ${KUBERNETES_VERSION} (up to about $minutes min on two cores)" "$work/$b.log" \
      bash -c 'cd "$1/k8s" && go build -trimpath -ldflags "$2" -o "$3" "k8s.io/kubernetes/cmd/$4"' _ "$work" "$ldflags" "$out/.$b.tmp" "$b"
  fi
  if [[ ! -x "$out/.$b.tmp" ]]; then echo "testkit: the build of $b finished but wrote no executable; see the log above" >&2; exit 1; fi
  mv "$out/.$b.tmp" "$out/$b"
  echo "$b: built from source" >>"$out/SOURCES"
done

echo "testkit: control plane ready in $((SECONDS - started)) s: $out" >&2
echo "$out"
