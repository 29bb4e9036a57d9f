#!/usr/bin/env bash
# Builds every program a kind node image carries from the Go module proxy, pinned by versions.env and the
# go.sum files under modules/, into OUT (one directory per component and version, kept between runs).
# Usage: build-binaries.sh OUT [COMPONENT...]   (components: the directories under modules/; default all)
# KIND_KUBERNETES_MINOR=1.34 builds Kubernetes, etcd and CoreDNS as kubernetes/1.34/ pins them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: build-binaries.sh OUT [COMPONENT...]}"
shift
only=("$@")
# The versions of the Kubernetes minor asked for ($KIND_KUBERNETES_MINOR; the project's own when unset).
# shellcheck source=kubernetes-minor.sh
source "$here/kubernetes-minor.sh"
load_node_image_versions
source "$here/../../tools/progress.sh"

# -mod=readonly: a module whose hash is not in the committed go.sum is refused, so what is built is what was
# pinned. GOSUMDB=off: the checksum database does not answer for every version the proxy serves here.
export GOFLAGS="-mod=readonly -buildvcs=false" GOSUMDB=off
build_date=2026-01-01T00:00:00Z
work="$(mktemp -d "${TMPDIR:-/tmp}/kind-node-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# go_build COMPONENT VERSION CGO TAGS LDFLAGS NAME=PACKAGE...: builds into $out/COMPONENT-VERSION unless present.
total=0 step=0
go_build() {
  local component="$1" version="$2" cgo="$3" tags="$4" ldflags="$5"
  shift 5
  local dir="$out/$component-$version"
  if ! wanted "$component"; then step=$((step + $#)); return 0; fi
  for spec in "$@"; do
    local name="${spec%%=*}"
    step=$((step + 1))
    [[ -x "$dir/$name" ]] && continue
    mkdir -p "$dir"
    with_progress "kind node image: go build $name $version ($step of $total)" "$work/$name.log" \
      env CGO_ENABLED="$cgo" bash -c 'cd "$1" && go build -trimpath -tags "$2" -ldflags "$3" -o "$4" "$5"' _ \
      "$(node_image_module_dir "$component")" "$tags" "$ldflags" "$dir/.$name.tmp" "${spec#*=}"
    mv "$dir/.$name.tmp" "$dir/$name"
  done
}

source "$here/../../tools/kubernetes-version-ldflags.sh"
k8s_ldflags="$(kubernetes_version_ldflags "$KUBERNETES_VERSION" "$build_date")"
k8s=()
for cmd in kubelet kubeadm kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
  k8s+=("$cmd=k8s.io/kubernetes/cmd/$cmd")
done
cni=(host-local=./plugins/ipam/host-local loopback=./plugins/main/loopback ptp=./plugins/main/ptp portmap=./plugins/meta/portmap)
total=$(( ${#k8s[@]} + 3 + 1 + 1 + ${#cni[@]} + 1 + 1 + 1 + 1 + 1 ))

wanted() { [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $1 "* ]]; }
if wanted runc && [[ ! -x "$out/runc-$RUNC_VERSION/runc" ]] && ! pkg-config --exists libseccomp 2>/dev/null; then
  echo "kind node image: runc needs libseccomp's headers to build: install them (Debian: apt-get install libseccomp-dev) and run this again." >&2
  exit 1
fi

# Cheapest first, so a missing prerequisite shows up before the long Kubernetes builds.
go_build runc "$RUNC_VERSION" 1 "seccomp urfave_cli_no_docs" "-s -w -X main.version=${RUNC_VERSION#v}" \
  runc=github.com/opencontainers/runc
cni_pkg=github.com/containernetworking/plugins
go_build cni "$CNI_PLUGINS_VERSION" 0 "" "-s -w -X $cni_pkg/pkg/utils/buildversion.BuildVersion=$CNI_PLUGINS_VERSION" \
  "${cni[@]/=./=$cni_pkg}"
go_build crictl "$CRICTL_VERSION" 0 "" "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION" \
  crictl=sigs.k8s.io/cri-tools/cmd/crictl
ctd_pkg=github.com/containerd/containerd/v2
go_build containerd "$CONTAINERD_VERSION" 1 "no_aufs no_zfs no_btrfs no_devmapper" \
  "-s -w -X $ctd_pkg/version.Version=$CONTAINERD_VERSION -X $ctd_pkg/version.Package=github.com/containerd/containerd" \
  containerd=$ctd_pkg/cmd/containerd containerd-shim-runc-v2=$ctd_pkg/cmd/containerd-shim-runc-v2 ctr=$ctd_pkg/cmd/ctr
go_build etcd "$ETCD_VERSION" 0 "" "-s -w" etcd=go.etcd.io/etcd/server/v3
go_build coredns "$COREDNS_VERSION" 0 "" "-s -w" coredns=github.com/coredns/coredns
go_build local-path-provisioner "$LOCAL_PATH_PROVISIONER_VERSION" 0 "" "-s -w -X main.VERSION=$LOCAL_PATH_PROVISIONER_VERSION" \
  local-path-provisioner=github.com/rancher/local-path-provisioner
# The registry kind/e2e.sh runs beside a locally built cluster, for the third-party images the specs use.
go_build registry "$REGISTRY_VERSION" 0 "" "-s -w -X github.com/distribution/distribution/v3/version.version=$REGISTRY_VERSION" \
  registry=github.com/distribution/distribution/v3/cmd/registry
# kind itself, for kind/e2e.sh where no kind is installed.
go_build kind "$KIND_VERSION" 0 "" "-s -w" kind=sigs.k8s.io/kind
go_build k8s "$KUBERNETES_VERSION" 0 "" "$k8s_ldflags" "${k8s[@]}"
