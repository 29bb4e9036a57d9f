#!/usr/bin/env bash
# Runs one operator's e2e spec on kind, as CI does:
#   kind/e2e.sh maintpage-operator|postgresql-operator|nutanix-ahvvm-operator
# Creates the cluster if absent, builds and loads the operator's images with a non-latest tag, installs
# deploy/<operator> with that tag (kubectl apply -k, done by the spec), runs the spec with the kind kubeconfig,
# and collects logs and events when it fails. Needs docker, kind and kubectl.
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

if ! kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  kind create cluster --name "$cluster" --config "$repo/kind/cluster.yaml" --wait 120s
fi
kubeconfig="$(mktemp)"
kind get kubeconfig --name "$cluster" > "$kubeconfig"

# npm run images' builder: BuildKit, and local stand-in bases where no registry answers.
bash "$repo/tools/images/build.sh" --registry "$registry" --tag "$tag" "${images[@]}"
for name in "${images[@]}"; do
  kind load docker-image "$registry/$name:$tag" --name "$cluster"
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
    KUBECONFIG="$kubeconfig" kubectl -n "$operator-system" logs "deployment/$operator-controller-manager" --all-containers --prefix > "$artifacts/operator.log" 2>&1 || true
    KUBECONFIG="$kubeconfig" kubectl describe pods -A > "$artifacts/pods.txt" 2>&1 || true
    kind export logs "$artifacts/kind" --name "$cluster" >/dev/null 2>&1 || true
  fi
  exit $status
}
trap collect EXIT

env_vars=(E2E_KUBECONFIG="$kubeconfig" E2E_KUSTOMIZE_DIR="$overlay")
if [[ "$operator" == nutanix-ahvvm-operator ]]; then
  # The Prism Central simulator runs on the runner; pods reach it through the kind network's gateway.
  gateway="$(docker network inspect kind -f '{{range .IPAM.Config}}{{if .Gateway}}{{.Gateway}} {{end}}{{end}}' | awk '{print $1}')"
  ca="$(mktemp)"
  bash "$repo/tools/node24.sh" node --conditions=source "$repo/packages/prism-simulator/src/cli.ts" \
    --host 0.0.0.0 --port 9440 --tls --tls-san "$gateway" --ca-out "$ca" > "$artifacts.simulator.log" 2>&1 &
  simulator_pid=$!
  for _ in $(seq 1 100); do [[ -s "$ca" ]] && break; sleep 0.2; done
  env_vars+=(E2E_PRISM_URL="https://$gateway:9440" E2E_PRISM_CA_FILE="$ca")
fi

cd "$repo/packages/$operator"
env "${env_vars[@]}" bash "$repo/tools/node24.sh" npx vitest run test/e2e
