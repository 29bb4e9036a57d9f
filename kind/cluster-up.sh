# Sourced by kind/e2e.sh and kind/soak-cluster.sh: a kind cluster ready for what the project runs on it.
#   kind_cluster_up CLUSTER                 creates CLUSTER (or keeps it when its node is whole), routes its Pod subnet to
#                                           its node, and sets: kind, local_cluster, kubeconfig, node_ip, pod_cidr,
#                                           pod_network_routed, gateway, audit_log_dir. Where the cluster is built
#                                           here, audit_log_dir holds its API server's audit log, and the kubectl of
#                                           the node's Kubernetes goes first on PATH.
#   kind_load_images CLUSTER TAG IMAGE...   builds the project's IMAGEs as npm run images does, tagged TAG, into CLUSTER
#   kind_overlay DIR OPERATOR TAG           writes a kustomization in DIR installing deploy/OPERATOR with the TAG images
#   kind_cluster_down CLUSTER               deletes CLUSTER, the routes kind_cluster_up added to its node and its
#                                           audit log
# Where the node image pinned in kind/cluster.yaml cannot be pulled (no registry answers), the cluster is made from what
# this machine can build, and only then (kind/local-cluster.sh): a node image built from source, the docker network
# "kind" without masquerading, and a local registry serving stand-ins for the third-party images.
cluster_up_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind_registry="ghcr.io/k8s-operators"
source "$cluster_up_repo/tools/images/engine.sh"
# shellcheck source=local-cluster.sh
source "$cluster_up_repo/kind/local-cluster.sh"

# A node that stopped with the engine (a reboot, a restarted dockerd) does not come back whole, whether it stays stopped
# or the engine restarted it: its API server answered the first requests of such a cluster with Forbidden for the
# admin. A node started more than a minute after it was created has been restarted.
kind_node_whole() {
  local node="$1" created started
  [[ "$(docker inspect -f '{{.State.Running}}' "$node" 2>/dev/null)" == true ]] || return 1
  created="$(date -d "$(docker inspect -f '{{.Created}}' "$node")" +%s)"
  started="$(date -d "$(docker inspect -f '{{.State.StartedAt}}' "$node")" +%s)"
  (( started - created < 60 ))
}

kind_cluster_up() {
  local cluster="$1" config
  ensure_engine
  kind="$(kind_command)"
  config="$cluster_up_repo/kind/cluster.yaml"
  local_cluster=""
  audit_log_dir=""
  if ! kind_node_image_available "$config"; then
    local_cluster=1
    audit_log_dir="$local_cache/audit/$cluster"
    config="$(local_cluster_config "$config" "$audit_log_dir")"
  elif [[ -n "${KIND_KUBERNETES_MINOR:-}" ]]; then
    echo "kind: KIND_KUBERNETES_MINOR (--kubernetes) picks a node image built here, but $config's can be pulled: on this" >&2
    echo "      machine, create the cluster from kind's published node image of that minor (as the e2e workflow's matrix does)" >&2
    return 1
  fi
  if "$kind" get clusters 2>/dev/null | grep -qx "$cluster" && ! kind_node_whole "$cluster-control-plane"; then
    echo "kind: the node of $cluster stopped or was restarted since it was created; deleting the cluster to create it again" >&2
    "$kind" delete cluster --name "$cluster"
  fi
  if [[ -n "$local_cluster" ]] && "$kind" get clusters 2>/dev/null | grep -qx "$cluster"; then
    # A node image built here is named by its Kubernetes version and inputs: a cluster of another one (another minor,
    # KIND_KUBERNETES_MINOR, or changed pins) is not the cluster asked for.
    local wanted running
    wanted="$(awk '$1 == "image:" {print $2; exit}' "$config")"
    running="$(docker inspect -f '{{.Config.Image}}' "$cluster-control-plane")"
    if [[ "$running" != "$wanted" ]]; then
      echo "kind: $cluster runs $running, not $wanted; deleting the cluster to create it again" >&2
      "$kind" delete cluster --name "$cluster"
    fi
  fi
  if ! "$kind" get clusters 2>/dev/null | grep -qx "$cluster"; then
    # A new cluster's audit log starts empty: every request in it is this cluster's.
    if [[ -n "$audit_log_dir" ]]; then rm -rf "$audit_log_dir" && mkdir -p "$audit_log_dir"; fi
    "$kind" create cluster --name "$cluster" --config "$config" --wait 120s
  fi
  if [[ -n "$local_cluster" ]]; then local_cluster_registry "$kind" "$cluster"; fi
  kubeconfig="$(mktemp)"
  "$kind" get kubeconfig --name "$cluster" > "$kubeconfig"
  if [[ -n "$local_cluster" ]]; then
    # The project's kubectl, not whatever kubectl this machine has (kubectl supports one minor of skew).
    PATH="$(local_kubectl_dir):$PATH"
  fi

  # What runs on this machine and talks to Pods (a Prometheus scraping them, the soak's probes) reaches them at their
  # addresses, as in a cluster: route the node's Pod subnet to the node. Without the route (no root, no sudo), those
  # specs say so and skip.
  pod_network_routed=0
  node_ip="$(docker inspect -f '{{(index .NetworkSettings.Networks "kind").IPAddress}}' "$cluster-control-plane")"
  pod_cidr="$(KUBECONFIG="$kubeconfig" kubectl get nodes -o jsonpath='{.items[0].spec.podCIDR}')"
  local as_root=()
  [[ "$(id -u)" == 0 ]] || as_root=(sudo -n)
  if "${as_root[@]}" ip route replace "$pod_cidr" via "$node_ip" 2>/dev/null; then
    echo "kind: routing the Pod subnet $pod_cidr to the node at $node_ip" >&2
    pod_network_routed=1
  else
    echo "kind: could not route $pod_cidr to the node (needs root or sudo); the metrics specs will skip" >&2
  fi

  # Services started on this machine (the Prism Central simulator, SeaweedFS) listen on the kind network's gateway, the
  # one address of this machine that pods reach. Its IPv4 address: from the network's IPAM settings where kind set it,
  # else (a network made with only a subnet, as kind/local-cluster.sh makes it) its bridge's address here.
  gateway="$(docker network inspect kind -f '{{range .IPAM.Config}}{{.Gateway}} {{end}}' | tr ' ' '\n' | awk '/\./ && !found {print; found = 1}')"
  if [[ -z "$gateway" ]]; then
    local bridge
    bridge="br-$(docker network inspect kind -f '{{.Id}}' | cut -c1-12)"
    gateway="$(ip -4 -o addr show "$bridge" | awk '{split($4, a, "/"); print a[1]; exit}')"
  fi
}

kind_load_images() {
  local cluster="$1" tag="$2" name
  shift 2
  # npm run images' builder: BuildKit, and local stand-in bases where no registry answers.
  bash "$cluster_up_repo/tools/images/build.sh" --registry "$kind_registry" --tag "$tag" "$@"
  for name in "$@"; do
    "$kind" load docker-image "$kind_registry/$name:$tag" --name "$cluster"
  done
}

kind_overlay() {
  local dir="$1" operator="$2" tag="$3" relative
  rm -rf "$dir" && mkdir -p "$dir"
  relative="$(realpath --relative-to="$dir" "$cluster_up_repo/deploy/$operator")"
  # An overlay that points the install at the images loaded (the page server image is a flag).
  {
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "resources: [$relative]"
    echo "images:"
    echo "  - {name: $kind_registry/$operator, newTag: $tag}"
    if [[ "$operator" == maintpage-operator ]]; then
      echo "patches:"
      echo "  - target: {kind: Deployment, name: maintpage-operator-controller-manager}"
      echo "    patch: |-"
      echo "      - op: replace"
      echo "        path: /spec/template/spec/containers/0/args/3"
      echo "        value: --page-server-image=$kind_registry/maintpage-page-server:$tag"
    fi
  } > "$dir/kustomization.yaml"
}

kind_cluster_down() {
  local cluster="$1" node_ip
  kind="$(kind_command)"
  node_ip="$(docker inspect -f '{{(index .NetworkSettings.Networks "kind").IPAddress}}' "$cluster-control-plane" 2>/dev/null || true)"
  "$kind" delete cluster --name "$cluster"
  # The route kind_cluster_up added from this machine to the node's Pod subnet.
  if [[ -n "$node_ip" ]]; then
    ip route show | awk -v via="$node_ip" '$2 == "via" && $3 == via {print $1}' | while read -r subnet; do
      ip route del "$subnet" 2>/dev/null || sudo -n ip route del "$subnet" 2>/dev/null || true
    done
  fi
  # And its API server's audit log (written as root, so removed as root where needed).
  rm -rf "$local_cache/audit/$cluster" 2>/dev/null || sudo -n rm -rf "$local_cache/audit/$cluster" 2>/dev/null || true
}
