#!/usr/bin/env bash
# Runs one operator's e2e spec on kind, as CI does:
#   kind/e2e.sh maintpage-operator|postgresql-operator|nutanix-ahvvm-operator   (also: npm run e2e:kind -- <operator|all>)
# Creates the cluster if absent, builds and loads the operator's images with a non-latest tag, installs
# deploy/<operator> with that tag (kubectl apply -k, done by the spec), runs the spec with the kind kubeconfig,
# and collects logs and events when it fails. Needs docker and kubectl; kind is built from source when not installed.
#
# Where the node image pinned in kind/cluster.yaml cannot be pulled (no registry answers), the cluster is made from
# what this machine can build, and only then (kind/local-cluster.sh):
#   - a node image built from source (kind/node-image.sh), with the kubelet's cgroup v1 refusal turned off on cgroup v1
#     hosts;
#   - the docker network "kind" on 172.30.0.0/24 (KIND_SUBNET), without masquerading, so nothing leaves the machine;
#   - a local registry beside the cluster serving stand-ins for the third-party images the specs pull (kind/stand-ins).
set -euo pipefail
operator="${1:?usage: kind/e2e.sh <operator>}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="${KIND_CLUSTER:-k8s-operators-e2e}"
registry="ghcr.io/k8s-operators"
tag="${E2E_IMAGE_TAG:-e2e-$(git -C "$repo" rev-parse --short HEAD)}"
artifacts="${E2E_ARTIFACTS:-$repo/kind/artifacts/$operator}"

case "$operator" in
  maintpage-operator) images=(maintpage-operator maintpage-page-server) ;;
  postgresql-operator) images=(postgresql-operator) ;;
  nutanix-ahvvm-operator) images=(nutanix-ahvvm-operator) ;;
  *) echo "kind/e2e.sh: unknown operator '$operator'" >&2; exit 2 ;;
esac
mkdir -p "$(dirname "$artifacts")"

source "$repo/tools/images/engine.sh"
ensure_engine
# shellcheck source=local-cluster.sh
source "$repo/kind/local-cluster.sh"
kind="$(kind_command)"

config="$repo/kind/cluster.yaml"
local_cluster=""
if ! kind_node_image_available "$config"; then
  local_cluster=1
  config="$(local_cluster_config "$config")"
fi
# A node that stopped with the engine (a reboot, a restarted dockerd) does not come back whole, whether it stays stopped
# or the engine restarted it: its API server answered the first requests of such a cluster with Forbidden for the
# admin. A node started more than a minute after it was created has been restarted.
node_whole() {
  local node="$1" created started
  [[ "$(docker inspect -f '{{.State.Running}}' "$node" 2>/dev/null)" == true ]] || return 1
  created="$(date -d "$(docker inspect -f '{{.Created}}' "$node")" +%s)"
  started="$(date -d "$(docker inspect -f '{{.State.StartedAt}}' "$node")" +%s)"
  (( started - created < 60 ))
}
if "$kind" get clusters 2>/dev/null | grep -qx "$cluster" && ! node_whole "$cluster-control-plane"; then
  echo "kind: the node of $cluster stopped or was restarted since it was created; deleting the cluster to create it again" >&2
  "$kind" delete cluster --name "$cluster"
fi
if ! "$kind" get clusters 2>/dev/null | grep -qx "$cluster"; then
  "$kind" create cluster --name "$cluster" --config "$config" --wait 120s
fi
if [[ -n "$local_cluster" ]]; then local_cluster_registry "$kind" "$cluster"; fi
kubeconfig="$(mktemp)"
"$kind" get kubeconfig --name "$cluster" > "$kubeconfig"
if [[ -n "$local_cluster" ]]; then
  # The project's kubectl, not whatever kubectl this machine has (kubectl supports one minor of skew).
  PATH="$(local_kubectl_dir):$PATH"
fi

# The metrics specs start a Prometheus on this machine, which scrapes Pods at their addresses, as in a cluster: route
# the node's Pod subnet to the node. Without the route (no root, no sudo), those specs say so and skip.
pod_network_routed=0
node_ip="$(docker inspect -f '{{(index .NetworkSettings.Networks "kind").IPAddress}}' "$cluster-control-plane")"
pod_cidr="$(KUBECONFIG="$kubeconfig" kubectl get nodes -o jsonpath='{.items[0].spec.podCIDR}')"
as_root=()
[[ "$(id -u)" == 0 ]] || as_root=(sudo -n)
if "${as_root[@]}" ip route replace "$pod_cidr" via "$node_ip" 2>/dev/null; then
  echo "kind: routing the Pod subnet $pod_cidr to the node at $node_ip" >&2
  pod_network_routed=1
else
  echo "kind: could not route $pod_cidr to the node (needs root or sudo); the metrics specs will skip" >&2
fi

# npm run images' builder: BuildKit, and local stand-in bases where no registry answers.
bash "$repo/tools/images/build.sh" --registry "$registry" --tag "$tag" "${images[@]}"
for name in "${images[@]}"; do
  "$kind" load docker-image "$registry/$name:$tag" --name "$cluster"
done

# An overlay that points the install at the images just loaded (the page server image is a flag).
overlay="$repo/kind/.overlays/$operator"
rm -rf "$overlay" && mkdir -p "$overlay"
{
  echo "apiVersion: kustomize.config.k8s.io/v1beta1"
  echo "kind: Kustomization"
  echo "resources: [../../../deploy/$operator]"
  echo "images:"
  echo "  - {name: $registry/$operator, newTag: $tag}"
  if [[ "$operator" == maintpage-operator ]]; then
    echo "patches:"
    echo "  - target: {kind: Deployment, name: maintpage-operator-controller-manager}"
    echo "    patch: |-"
    echo "      - op: replace"
    echo "        path: /spec/template/spec/containers/0/args/3"
    echo "        value: --page-server-image=$registry/maintpage-page-server:$tag"
  fi
} > "$overlay/kustomization.yaml"

simulator_pid=""
collect() {
  status=$?
  if [[ -n "$simulator_pid" ]]; then kill "$simulator_pid" 2>/dev/null || true; fi
  if [[ $status -ne 0 ]]; then
    echo "e2e failed; collecting logs and events into $artifacts" >&2
    mkdir -p "$artifacts"
    KUBECONFIG="$kubeconfig" kubectl get events -A --sort-by=.lastTimestamp > "$artifacts/events.txt" 2>&1 || true
    KUBECONFIG="$kubeconfig" kubectl -n "$operator-system" logs -l control-plane=controller-manager --all-containers --prefix --tail=-1 > "$artifacts/operator.log" 2>&1 || true
    KUBECONFIG="$kubeconfig" kubectl -n "$operator-system" logs -l app.kubernetes.io/component=backup-store --prefix --tail=-1 > "$artifacts/backup-store.log" 2>&1 || true
    KUBECONFIG="$kubeconfig" kubectl describe pods -A > "$artifacts/pods.txt" 2>&1 || true
    "$kind" export logs "$artifacts/kind" --name "$cluster" >/dev/null 2>&1 || true
  fi
  exit $status
}
trap collect EXIT

# Services the specs start on this machine (the Prism Central simulator, SeaweedFS) listen on the kind network's
# gateway, the one address of this machine that pods reach. Its IPv4 address: from the network's IPAM settings where
# kind set it, else (a network made with only a subnet, as kind/local-cluster.sh makes it) its bridge's address here.
gateway="$(docker network inspect kind -f '{{range .IPAM.Config}}{{.Gateway}} {{end}}' | tr ' ' '\n' | awk '/\./ && !found {print; found = 1}')"
if [[ -z "$gateway" ]]; then
  bridge="br-$(docker network inspect kind -f '{{.Id}}' | cut -c1-12)"
  gateway="$(ip -4 -o addr show "$bridge" | awk '{split($4, a, "/"); print a[1]; exit}')"
fi
env_vars=(E2E_KUBECONFIG="$kubeconfig" E2E_KUSTOMIZE_DIR="$overlay" E2E_POD_NETWORK_ROUTED="$pod_network_routed" E2E_HOST_ADDRESS="$gateway")
# A Prism Central simulator serving only the API $1 (v3 or v4), seeded as the spec expects (the e2e's
# prism-simulator.json: GPUs and storage containers); its CA goes to $ca.
start_simulator() {
  ca="$(mktemp)"
  bash "$repo/tools/node24.sh" node --conditions=source "$repo/packages/prism-simulator/src/cli.ts" \
    --host "$gateway" --port 9440 --tls --tls-san "$gateway" --ca-out "$ca" --apis "$1" \
    --config "$repo/packages/nutanix-ahvvm-operator/test/e2e/prism-simulator.json" > "$artifacts.simulator-$1.log" 2>&1 &
  simulator_pid=$!
  for _ in $(seq 1 100); do [[ -s "$ca" ]] && break; sleep 0.2; done
  [[ -s "$ca" ]] || { echo "kind: the Prism simulator did not start; see $artifacts.simulator-$1.log" >&2; exit 1; }
}

cd "$repo/packages/$operator"
if [[ "$operator" == nutanix-ahvvm-operator ]]; then
  # The same spec in each mode, one after the other on the one cluster, each against a simulator of its own that
  # serves only the API the operator must end up on (nutanix-v4 and nutanix-auto.e2e.test.ts do this on the local
  # cluster): v3 on a v3-only Prism Central, v4 pinned and `auto` on a v4-only one.
  for mode in v3 v4 auto; do
    served="$([[ "$mode" == v3 ]] && echo v3 || echo v4)"
    echo "kind: the nutanix spec with PRISM_API_VERSION=$mode on a Prism Central serving $served only" >&2
    start_simulator "$served"
    env "${env_vars[@]}" E2E_PRISM_URL="https://$gateway:9440" E2E_PRISM_CA_FILE="$ca" E2E_PRISM_API="$mode" \
      bash "$repo/tools/node24.sh" npx vitest run test/e2e/nutanix.e2e.test.ts
    kill "$simulator_pid" && wait "$simulator_pid" || true
    simulator_pid=""
  done
else
  env "${env_vars[@]}" bash "$repo/tools/node24.sh" npx vitest run test/e2e
fi
