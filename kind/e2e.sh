#!/usr/bin/env bash
# Runs one operator's e2e spec on kind, as CI does:
#   kind/e2e.sh maintpage-operator|postgresql-operator|nutanix-ahvvm-operator   (also: npm run e2e:kind -- <operator|all>)
# Creates the cluster if absent, builds and loads the operator's images with a non-latest tag, installs
# deploy/<operator> with that tag (kubectl apply -k, done by the spec), runs the spec with the kind kubeconfig,
# and collects logs and events when it fails. Needs docker and kubectl; kind is built from source when not installed.
#
# E2E_INSTALL=manifest or chart (npm run e2e:kind -- <operator|all> --install WAY) installs from a release instead, as its
# users do: `npm run release -- --push` builds the images, pushes them to the local registry beside the cluster and pins
# the digests it returned in install.yaml and the chart, so the cluster pulls each image by digest; the spec then applies
# install.yaml server-side, or installs the chart with helm (testkit's e2e-install.ts). Each way has a cluster of its own
# (k8s-operators-e2e-manifest, -chart): one way's install cannot take over another's objects (helm adopts none).
#
# Where the node image pinned in kind/cluster.yaml cannot be pulled (no registry answers), the cluster is made from
# what this machine can build (kind/cluster-up.sh says how).
set -euo pipefail
operator="${1:?usage: kind/e2e.sh <operator>}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
install_way="${E2E_INSTALL:-kustomize}"
case "$install_way" in
  kustomize) cluster="${KIND_CLUSTER:-k8s-operators-e2e}" ;;
  manifest|chart) cluster="${KIND_CLUSTER:-k8s-operators-e2e-$install_way}" ;;
  *) echo "kind/e2e.sh: E2E_INSTALL=$install_way is not a way to install: kustomize, manifest or chart" >&2; exit 2 ;;
esac
tag="${E2E_IMAGE_TAG:-e2e-$(git -C "$repo" rev-parse --short HEAD)}"
artifacts="${E2E_ARTIFACTS:-$repo/kind/artifacts/$operator}"

case "$operator" in
  maintpage-operator) images=(maintpage-operator maintpage-page-server) ;;
  postgresql-operator) images=(postgresql-operator) ;;
  nutanix-ahvvm-operator) images=(nutanix-ahvvm-operator) ;;
  *) echo "kind/e2e.sh: unknown operator '$operator'" >&2; exit 2 ;;
esac
mkdir -p "$(dirname "$artifacts")"

# shellcheck source=cluster-up.sh
source "$repo/kind/cluster-up.sh"
kind_cluster_up "$cluster"
install_env=()
if [[ "$install_way" == kustomize ]]; then
  kind_load_images "$cluster" "$tag" "${images[@]}"
  overlay="$repo/kind/.overlays/$operator"
  kind_overlay "$overlay" "$operator" "$tag"
  install_env=(E2E_KUSTOMIZE_DIR="$overlay")
else
  if [[ -z "$local_cluster" ]]; then
    echo "kind/e2e.sh: --install $install_way pushes the release to the local registry kind/e2e.sh runs beside a cluster built" >&2
    echo "            here; this cluster runs kindest/node, which pulls from real registries: use the default way here" >&2
    exit 2
  fi
  release_dir="$repo/kind/.release"
  kind_push_release "$release_dir" "0.0.0-$tag"
  [[ "$install_way" != chart ]] || (cd "$repo" && npm run -s provision -- helm)
  install_env=(E2E_INSTALL="$install_way" E2E_RELEASE_DIR="$release_dir")
fi

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

env_vars=(E2E_KUBECONFIG="$kubeconfig" "${install_env[@]}" E2E_POD_NETWORK_ROUTED="$pod_network_routed" E2E_HOST_ADDRESS="$gateway")
# The API server's audit log, for the least-privilege checks: kept in a directory of this machine where the cluster is
# built here (the API server writes it as root); elsewhere those checks skip.
if [[ -n "$audit_log_dir" && -r "$audit_log_dir/audit.log" ]]; then env_vars+=(E2E_AUDIT_LOG_DIR="$audit_log_dir"); fi
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
