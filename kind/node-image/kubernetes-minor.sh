# Sourced: the versions a kind node image is built from, for one Kubernetes minor.
#   load_node_image_versions [MINOR]   sources versions.env (the project's Kubernetes and everything the node carries),
#                                      then, for another minor (1.34, or $KIND_KUBERNETES_MINOR when none is given), that
#                                      minor's kubernetes/<minor>/versions.env: its Kubernetes and the etcd and CoreDNS its
#                                      kubeadm deploys. Sets node_image_minor_dir (empty for the project's own minor).
#   project_kubernetes_minor           the project's own minor (1.36), from versions.env
#   node_image_module_dir COMPONENT    the Go module COMPONENT is built from: the minor's own (k8s, etcd, coredns) where
#                                      it has one, else the shared one under modules/
# A minor's directory is written by kind/node-image/pin-kubernetes-minor.sh; the project's minor lives at the top.
node_image_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

project_kubernetes_minor() {
  local version
  version="$(sed -n 's/^KUBERNETES_VERSION=v//p' "$node_image_dir/versions.env")"
  echo "${version%.*}"
}

load_node_image_versions() {
  local minor="${1:-${KIND_KUBERNETES_MINOR:-}}" own
  # shellcheck source=versions.env
  source "$node_image_dir/versions.env"
  node_image_minor_dir=""
  own="$(project_kubernetes_minor)"
  [[ -z "$minor" || "$minor" == "$own" ]] && return 0
  if [[ ! -f "$node_image_dir/kubernetes/$minor/versions.env" ]]; then
    local known=("$own")
    local dir
    for dir in "$node_image_dir"/kubernetes/*/; do [[ -f "$dir/versions.env" ]] && known+=("$(basename "$dir")"); done
    echo "kind node image: no pins for Kubernetes $minor; pinned here: $(printf '%s\n' "${known[@]}" | sort -V | paste -sd' ')." >&2
    echo "  To add a minor: bash kind/node-image/pin-kubernetes-minor.sh v$minor.<patch>" >&2
    return 1
  fi
  node_image_minor_dir="$node_image_dir/kubernetes/$minor"
  # shellcheck source=/dev/null
  source "$node_image_minor_dir/versions.env"
}

node_image_module_dir() {
  if [[ -n "$node_image_minor_dir" && -d "$node_image_minor_dir/modules/$1" ]]; then
    echo "$node_image_minor_dir/modules/$1"
  else
    echo "$node_image_dir/modules/$1"
  fi
}
