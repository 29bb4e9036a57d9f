#!/usr/bin/env bash
# Builds a kind node image for the project's Kubernetes from source, for machines where kindest/node cannot be pulled
# (no container registry answers). Everything comes from the Go module proxy and Debian's mirror, pinned by
# kind/node-image/versions.env and the go.sum files under kind/node-image/modules/:
#   1. the node's programs (containerd, runc, crictl, CNI plugins, kubelet, kubeadm, kubectl) and the control plane's
#      (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, etcd, CoreDNS), plus kind itself;
#   2. the images kubeadm and kind start (registry.k8s.io/kube-apiserver:<version>, etcd, coredns, pause, ...) on the
#      Debian base;
#   3. the node image: kind's base-image files from the pinned kind module, the programs, the images preloaded.
# Binaries are kept under ~/.cache/operators-kind by component and version; the image is tagged by a digest of every
# input, so a rerun with nothing changed is immediate and a changed pin builds a new image.
#
# Usage: kind/node-image.sh [--print-image] [MINOR]   (also: npm run kind -- node-image [MINOR])
#   MINOR (such as 1.34; default $KIND_KUBERNETES_MINOR, else the project's own) is one pinned under
#   kind/node-image/kubernetes/ by pin-kubernetes-minor.sh: that release with the etcd and CoreDNS its kubeadm deploys.
#   Prints the image's name on stdout; progress goes to stderr.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
here="$repo/kind/node-image"
print_only=""
if [[ "${1:-}" == "--print-image" ]]; then print_only=1; shift; fi
# shellcheck source=node-image/kubernetes-minor.sh
source "$here/kubernetes-minor.sh"
load_node_image_versions "${1:-}"
# build-binaries.sh, run below, builds the same minor.
[[ -z "${1:-}" ]] || export KIND_KUBERNETES_MINOR="$1"
source "$repo/tools/progress.sh"
source "$repo/tools/images/engine.sh"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/operators-kind"

# Every input of this minor's image: what all minors share, and the minor's own pins (not the other minors').
fingerprint="$(cd "$here" && { find . -path ./kubernetes -prune -o -type f ! -name '*.log' -print0
  [[ -z "$node_image_minor_dir" ]] || find "./kubernetes/$(basename "$node_image_minor_dir")" -type f -print0; } \
  | LC_ALL=C sort -z | xargs -0 sha256sum \
  | cat - "$repo/kind/node-image.sh" "$repo/tools/kubernetes-version-ldflags.sh" | sha256sum | cut -c1-12)"
image="k8s-operators.local/kind-node:${KUBERNETES_VERSION}-${fingerprint}"
if [[ -n "$print_only" ]]; then echo "$image"; exit 0; fi

ensure_engine
if docker image inspect "$image" >/dev/null 2>&1; then echo "$image"; exit 0; fi
echo "kind node image: building $image (first time for these versions: 30-60 min on two cores, mostly Go builds)" >&2
start=$SECONDS

bash "$here/build-binaries.sh" "$cache/bin"
bin() { echo "$cache/bin/$1-$2"; }

# The Debian base: the published one where a registry answers, else the local stand-in images/local-bases.sh makes.
base="debian:${DEBIAN_SUITE:-bookworm}-slim"
if ! docker image inspect "$base" >/dev/null 2>&1 && ! timeout 60 docker pull -q "$base" >/dev/null 2>&1; then
  bash "$repo/tools/images/local-bases.sh" >/dev/null
  base="k8s-operators.local/debian:bookworm"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/kind-node-image.XXXXXX")"
builder=""
cleanup() {
  [[ -n "$builder" ]] && docker rm -f "$builder" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# The sandbox program: a few lines of C, built static so it runs on any base.
mkdir -p "$work/pause"
gcc -static -O2 -o "$work/pause/pause" "$here/images/pause.c"

# component_image TAG DOCKERFILE BINARY_DIR BINARY [EXTRA_PACKAGES]
component_images=()
component_image() {
  local tag="$1" dockerfile="$2" dir="$3" binary="$4" packages="${5:-}"
  component_images+=("$tag")
  with_progress "kind node image: image $tag" "$work/image-${binary}.log" \
    image_build --network host -f "$here/images/$dockerfile" -t "$tag" --build-arg "BASE=$base" \
      --build-arg "BINARY=$binary" --build-arg "EXTRA_PACKAGES=$packages" "$dir"
}
k8s_bin="$(bin k8s "$KUBERNETES_VERSION")"
for component in kube-apiserver kube-controller-manager kube-scheduler; do
  component_image "registry.k8s.io/$component:$KUBERNETES_VERSION" static-binary.Dockerfile "$k8s_bin" "$component"
done
# kube-proxy programs the node's Service rules with iptables (and conntrack to flush stale UDP entries).
component_image "registry.k8s.io/kube-proxy:$KUBERNETES_VERSION" static-binary.Dockerfile "$k8s_bin" kube-proxy \
  "iptables conntrack nftables ipset kmod"
component_image "registry.k8s.io/etcd:$ETCD_IMAGE_TAG" static-binary.Dockerfile "$(bin etcd "$ETCD_VERSION")" etcd
component_image "registry.k8s.io/coredns/coredns:$COREDNS_VERSION" entrypoint.Dockerfile "$(bin coredns "$COREDNS_VERSION")" coredns
component_image "registry.k8s.io/pause:$PAUSE_IMAGE_TAG" entrypoint.Dockerfile "$work/pause" pause
component_image "k8s-operators.local/local-path-provisioner:$LOCAL_PATH_PROVISIONER_VERSION" entrypoint.Dockerfile \
  "$(bin local-path-provisioner "$LOCAL_PATH_PROVISIONER_VERSION")" local-path-provisioner
# The provisioner's helper Pods only need a shell, mkdir and rm.
helper="k8s-operators.local/local-path-helper:bookworm"
docker tag "$base" "$helper"
component_images+=("$helper")

# The build context of the node image.
kind_module="$(cd "$here/modules/kind" && GOFLAGS=-mod=readonly GOSUMDB=off go list -m -f '{{.Dir}}' sigs.k8s.io/kind)"
mkdir -p "$work/node/bin/cni" "$work/node/node-files"
cp -r "$kind_module/images/base/files" "$work/node/kind-base"
chmod -R u+w "$work/node/kind-base"
cp -r "$here/files/." "$work/node/node-files/"
sed -i -e "s/@LOCAL_PATH_PROVISIONER_VERSION@/$LOCAL_PATH_PROVISIONER_VERSION/g" -e "s/@DEBIAN_SUITE@/bookworm/g" \
  "$work/node/node-files/kind/manifests/default-storage.yaml"
cp "$(bin containerd "$CONTAINERD_VERSION")"/{containerd,containerd-shim-runc-v2,ctr} "$(bin crictl "$CRICTL_VERSION")/crictl" \
  "$(bin runc "$RUNC_VERSION")/runc" "$k8s_bin"/{kubelet,kubeadm,kubectl} "$work/node/bin/"
cp "$(bin cni "$CNI_PLUGINS_VERSION")"/* "$work/node/bin/cni/"
with_progress "kind node image: node image (Debian packages, kind's base files, the node's programs)" "$work/node.log" \
  image_build --network host -f "$here/node.Dockerfile" -t "$image-unloaded" --build-arg "BASE=$base" \
    --build-arg "KUBERNETES_VERSION=$KUBERNETES_VERSION" "$work/node"

# Preload the images into the node's containerd, as `kind build node-image` does: run the node image with containerd
# alone, import, and commit the result (docker build cannot run containerd).
echo "kind node image: preloading ${#component_images[@]} images into the node's containerd" >&2
docker save -o "$work/images.tar" "${component_images[@]}"
builder="kind-node-build-$$"
docker run -d --name "$builder" --entrypoint sleep --security-opt seccomp=unconfined "$image-unloaded" infinity >/dev/null
docker exec "$builder" bash -c 'nohup containerd >/var/log/containerd-build.log 2>&1 &'
docker exec "$builder" bash -c 'for _ in $(seq 1 60); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && exit 0; sleep 0.5; done; cat /var/log/containerd-build.log; exit 1'
docker exec -i "$builder" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned --no-unpack - < "$work/images.tar" >&2
docker exec "$builder" ctr --namespace=k8s.io images list -q >&2
# PID 1 here is sleep, which reaps nothing: a stopped containerd stays a zombie, so wait for that state.
docker exec "$builder" bash -c 'pkill -x containerd; while ps -C containerd -o stat= | grep -qv "^Z"; do sleep 0.2; done; rm -f /var/log/containerd-build.log'
docker commit --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' --change 'CMD []' "$builder" "$image" >/dev/null
docker rm -f "$builder" >/dev/null
builder=""
docker rmi "$image-unloaded" >/dev/null
echo "kind node image: $image ready in $((SECONDS - start)) s" >&2
echo "$image"
