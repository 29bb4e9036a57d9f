#!/usr/bin/env bash
# The kind cluster `npm run soak -- --cluster kind` runs on, apart from the e2e one (its own name). Both use the Pod
# subnet 10.244.0.0/24 (the node image built here has it fixed: kind/node-image/files/kind/manifests/default-cni.yaml),
# routed from this machine to the node of whichever was set up last, so they are not run at the same time.
#   kind/soak-cluster.sh up     creates it, builds and loads the four images with a non-latest tag, writes an overlay
#                               per operator; prints one JSON line on stdout (kubeconfig, kubectl, node, gateway,
#                               overlays); progress goes to stderr
#   kind/soak-cluster.sh down   deletes it and its route
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="${KIND_SOAK_CLUSTER:-k8s-operators-soak}"
operators=(maintpage-operator postgresql-operator nutanix-ahvvm-operator)

# shellcheck source=cluster-up.sh
source "$repo/kind/cluster-up.sh"

case "${1:-}" in
  up)
    # Only the JSON line goes to stdout (the soak reads it); what the tools print is progress, on stderr.
    exec 3>&1 1>&2
    kind_cluster_up "$cluster"
    [[ "$pod_network_routed" == 1 ]] || { echo "kind/soak-cluster.sh: the soak probes Pods from this machine and needs the route to $pod_cidr (run as root or with sudo)" >&2; exit 1; }
    tag="soak-$(git -C "$repo" rev-parse --short HEAD)"
    kind_load_images "$cluster" "$tag" maintpage-operator maintpage-page-server postgresql-operator nutanix-ahvvm-operator
    overlays="$repo/kind/.overlays/soak"
    for operator in "${operators[@]}"; do kind_overlay "$overlays/$operator" "$operator" "$tag"; done
    printf '{"cluster":"%s","kubeconfig":"%s","kubectl":"%s","node":"%s","gateway":"%s","overlays":"%s"}\n' \
      "$cluster" "$kubeconfig" "$(command -v kubectl)" "$cluster-control-plane" "$gateway" "$overlays" >&3
    ;;
  down)
    kind_cluster_down "$cluster"
    ;;
  *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
